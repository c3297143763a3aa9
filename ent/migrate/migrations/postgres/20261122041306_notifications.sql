-- Modify "users" table
ALTER TABLE "users" ADD COLUMN "email" character varying NULL;
-- Create "notifications" table
CREATE TABLE "notifications" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "user_id" uuid NOT NULL, "scheduled_event_id" uuid NOT NULL, "type" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'PENDING', "recipient" character varying NULL, "title" character varying NOT NULL, "body" character varying NOT NULL, "attempts" bigint NOT NULL DEFAULT 0, "next_attempt_at" timestamptz NOT NULL, "lease_until" timestamptz NULL, "leased_by" character varying NULL, "sent_at" timestamptz NULL, "error_message" character varying NULL, "read_at" timestamptz NULL, PRIMARY KEY ("id"));
-- Create index "notification_farm_id_status_created_at" to table: "notifications"
CREATE INDEX "notification_farm_id_status_created_at" ON "notifications" ("farm_id", "status", "created_at");
-- Create index "notification_farm_id_user_id_created_at" to table: "notifications"
CREATE INDEX "notification_farm_id_user_id_created_at" ON "notifications" ("farm_id", "user_id", "created_at");
-- Create index "notification_scheduled_event_id_user_id_type" to table: "notifications"
CREATE UNIQUE INDEX "notification_scheduled_event_id_user_id_type" ON "notifications" ("scheduled_event_id", "user_id", "type");
-- Create index "notification_status_next_attempt_at" to table: "notifications"
CREATE INDEX "notification_status_next_attempt_at" ON "notifications" ("status", "next_attempt_at");
-- Create "notification_preferences" table
CREATE TABLE "notification_preferences" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "user_id" uuid NOT NULL, "farm_id" uuid NOT NULL, "email" boolean NOT NULL, "sms" boolean NOT NULL, "in_app" boolean NOT NULL, PRIMARY KEY ("id"));
-- Create index "notificationpreference_user_id_farm_id" to table: "notification_preferences"
CREATE UNIQUE INDEX "notificationpreference_user_id_farm_id" ON "notification_preferences" ("user_id", "farm_id");
-- Create "scheduled_events" table
CREATE TABLE "scheduled_events" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "kind" character varying NOT NULL, "subject" character varying NOT NULL, "due_on" character varying NOT NULL, "due_at" timestamptz NOT NULL, "payload" jsonb NOT NULL, "recipient_id" uuid NULL, "channel" character varying NULL, "processed_at" timestamptz NULL, PRIMARY KEY ("id"));
-- Create index "scheduledevent_farm_id_kind_subject_due_on" to table: "scheduled_events"
CREATE UNIQUE INDEX "scheduledevent_farm_id_kind_subject_due_on" ON "scheduled_events" ("farm_id", "kind", "subject", "due_on");
-- Create index "scheduledevent_processed_at_due_at" to table: "scheduled_events"
CREATE INDEX "scheduledevent_processed_at_due_at" ON "scheduled_events" ("processed_at", "due_at");
