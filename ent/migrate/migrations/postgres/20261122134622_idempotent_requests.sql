-- Create "idempotent_requests" table
CREATE TABLE "idempotent_requests" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "user_id" uuid NOT NULL, "key" character varying NOT NULL, "fingerprint" character varying NOT NULL, "status" bigint NOT NULL DEFAULT 0, "content_type" character varying NOT NULL DEFAULT '', "body" bytea NULL, PRIMARY KEY ("id"));
-- Create index "idempotentrequest_created_at" to table: "idempotent_requests"
CREATE INDEX "idempotentrequest_created_at" ON "idempotent_requests" ("created_at");
-- Create index "idempotentrequest_user_id_key" to table: "idempotent_requests"
CREATE UNIQUE INDEX "idempotentrequest_user_id_key" ON "idempotent_requests" ("user_id", "key");
