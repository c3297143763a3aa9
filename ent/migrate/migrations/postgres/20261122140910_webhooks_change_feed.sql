-- Modify "animals" table
ALTER TABLE "animals" ADD COLUMN "change_seq" bigint NOT NULL DEFAULT 0;
-- Create index "animal_farm_id_change_seq" to table: "animals"
CREATE INDEX "animal_farm_id_change_seq" ON "animals" ("farm_id", "change_seq");
-- Modify "farm_tasks" table
ALTER TABLE "farm_tasks" ADD COLUMN "change_seq" bigint NOT NULL DEFAULT 0;
-- Create index "farmtask_farm_id_change_seq" to table: "farm_tasks"
CREATE INDEX "farmtask_farm_id_change_seq" ON "farm_tasks" ("farm_id", "change_seq");
-- Modify "farms" table
ALTER TABLE "farms" ADD COLUMN "change_seq" bigint NOT NULL DEFAULT 0;
-- Create index "farm_change_seq" to table: "farms"
CREATE INDEX "farm_change_seq" ON "farms" ("change_seq");
-- Modify "records" table
ALTER TABLE "records" ADD COLUMN "change_seq" bigint NOT NULL DEFAULT 0;
-- Create index "record_farm_id_change_seq" to table: "records"
CREATE INDEX "record_farm_id_change_seq" ON "records" ("farm_id", "change_seq");
-- Create "change_counters" table
CREATE TABLE "change_counters" ("id" uuid NOT NULL, "seq" bigint NOT NULL DEFAULT 0, PRIMARY KEY ("id"));
-- Create "webhook_endpoints" table
CREATE TABLE "webhook_endpoints" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "url" character varying NOT NULL, "description" character varying NULL, "event_types" jsonb NOT NULL, "secret" character varying NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "disabled_reason" character varying NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "webhookendpoint_farm_id_created_at" to table: "webhook_endpoints"
CREATE INDEX "webhookendpoint_farm_id_created_at" ON "webhook_endpoints" ("farm_id", "created_at");
-- Create "webhook_events" table
CREATE TABLE "webhook_events" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "type" character varying NOT NULL, "subject_id" uuid NOT NULL, "payload" bytea NOT NULL, PRIMARY KEY ("id"));
-- Create index "webhookevent_farm_id_created_at" to table: "webhook_events"
CREATE INDEX "webhookevent_farm_id_created_at" ON "webhook_events" ("farm_id", "created_at");
-- Create "webhook_deliveries" table
CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "status" character varying NOT NULL DEFAULT 'PENDING', "attempts" bigint NOT NULL DEFAULT 0, "next_attempt_at" timestamptz NOT NULL, "lease_until" timestamptz NULL, "leased_by" character varying NULL, "last_status_code" bigint NULL, "last_error" character varying NULL, "delivered_at" timestamptz NULL, "endpoint_id" uuid NOT NULL, "event_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "webhook_deliveries_webhook_endpoints_deliveries" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "webhook_deliveries_webhook_events_deliveries" FOREIGN KEY ("event_id") REFERENCES "webhook_events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "webhookdelivery_endpoint_id_created_at" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_endpoint_id_created_at" ON "webhook_deliveries" ("endpoint_id", "created_at");
-- Create index "webhookdelivery_event_id_endpoint_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX "webhookdelivery_event_id_endpoint_id" ON "webhook_deliveries" ("event_id", "endpoint_id");
-- Create index "webhookdelivery_status_next_attempt_at" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_status_next_attempt_at" ON "webhook_deliveries" ("status", "next_attempt_at");
-- Create "webhook_attempts" table
CREATE TABLE "webhook_attempts" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "status_code" bigint NULL, "error" character varying NULL, "response" character varying NULL, "duration_ms" bigint NOT NULL, "worker" character varying NULL, "delivery_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "webhook_attempts_webhook_deliveries_attempt_log" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "webhookattempt_delivery_id_created_at" to table: "webhook_attempts"
CREATE INDEX "webhookattempt_delivery_id_created_at" ON "webhook_attempts" ("delivery_id", "created_at");
