-- Create "holdings" table
CREATE TABLE "holdings" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "scheme" character varying NOT NULL, "identifier" character varying NOT NULL, "name" character varying NULL, "herd_mark" character varying NULL, "keeper_name" character varying NOT NULL, "keeper_reference" character varying NULL, "address" character varying NULL, "postcode" character varying NULL, "country" character varying NOT NULL, "rule_set" character varying NOT NULL, "herd_type" character varying NOT NULL DEFAULT 'beef', "time_zone" character varying NOT NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "holding_scheme_identifier" to table: "holdings"
CREATE INDEX "holding_scheme_identifier" ON "holdings" ("scheme", "identifier");
-- Create "notice_submissions" table
CREATE TABLE "notice_submissions" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "holding_id" uuid NOT NULL, "farm_id" uuid NOT NULL, "notice_key" character varying NOT NULL, "kind" character varying NOT NULL, "animal_id" uuid NULL, "idempotency_key" character varying NOT NULL, "state" character varying NOT NULL, "channel" character varying NOT NULL, "registry_reference" character varying NULL, "cause" character varying NULL, "sent_at" timestamptz NULL, "answered_at" timestamptz NULL, "attempts" bigint NOT NULL DEFAULT 0, "next_attempt_at" timestamptz NULL, "payload" bytea NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "noticesubmission_holding_id_notice_key_created_at" to table: "notice_submissions"
CREATE INDEX "noticesubmission_holding_id_notice_key_created_at" ON "notice_submissions" ("holding_id", "notice_key", "created_at");
-- Create index "noticesubmission_idempotency_key" to table: "notice_submissions"
CREATE UNIQUE INDEX "noticesubmission_idempotency_key" ON "notice_submissions" ("idempotency_key");
-- Create index "noticesubmission_state_next_attempt_at" to table: "notice_submissions"
CREATE INDEX "noticesubmission_state_next_attempt_at" ON "notice_submissions" ("state", "next_attempt_at");
-- Create "holding_farms" table
CREATE TABLE "holding_farms" ("id" uuid NOT NULL, "farm_id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "linked_by" uuid NULL, "holding_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "holding_farms_holdings_farms" FOREIGN KEY ("holding_id") REFERENCES "holdings" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "holdingfarm_farm_id" to table: "holding_farms"
CREATE UNIQUE INDEX "holdingfarm_farm_id" ON "holding_farms" ("farm_id");
-- Create index "holdingfarm_holding_id" to table: "holding_farms"
CREATE INDEX "holdingfarm_holding_id" ON "holding_farms" ("holding_id");
