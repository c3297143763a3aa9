-- Modify "notice_submissions" table
ALTER TABLE "notice_submissions" ADD COLUMN "batch_id" character varying NULL;
-- Create "registry_credentials" table
CREATE TABLE "registry_credentials" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "holding_id" uuid NOT NULL, "username" character varying NOT NULL, "sealed_password" bytea NOT NULL, "key_id" character varying NOT NULL, "sending" boolean NOT NULL DEFAULT false, "last_error" character varying NULL, "updated_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "registry_credentials_holding_id_key" to table: "registry_credentials"
CREATE UNIQUE INDEX "registry_credentials_holding_id_key" ON "registry_credentials" ("holding_id");
