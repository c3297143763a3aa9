-- Modify "record_items" table
ALTER TABLE "record_items" ADD COLUMN "fact_kind" character varying NULL, ADD COLUMN "fact_subject" uuid NULL, ADD COLUMN "fact_dam" uuid NULL, ADD COLUMN "fact_group" uuid NULL, ADD COLUMN "fact_date" character varying NULL, ADD COLUMN "fact_until" character varying NULL;
-- Create index "recorditem_fact_dam" to table: "record_items"
CREATE INDEX "recorditem_fact_dam" ON "record_items" ("fact_dam");
-- Create index "recorditem_fact_group_fact_kind" to table: "record_items"
CREATE INDEX "recorditem_fact_group_fact_kind" ON "record_items" ("fact_group", "fact_kind");
-- Create index "recorditem_fact_subject" to table: "record_items"
CREATE INDEX "recorditem_fact_subject" ON "record_items" ("fact_subject");
-- Create "birth_previews" table
CREATE TABLE "birth_previews" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "dam_id" uuid NOT NULL, "birth_date" character varying NOT NULL, "settings_version" bigint NOT NULL, "protocol_version" bigint NOT NULL, "evidence" jsonb NOT NULL, "tasks" jsonb NOT NULL, "stale" boolean NOT NULL DEFAULT false, "approved_at" timestamptz NULL, "birth_event_id" uuid NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "birthpreview_farm_id_stale" to table: "birth_previews"
CREATE INDEX "birthpreview_farm_id_stale" ON "birth_previews" ("farm_id", "stale");
-- Create "birth_settings" table
CREATE TABLE "birth_settings" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "version" bigint NOT NULL, "settings" jsonb NOT NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "birthsettings_farm_id_version" to table: "birth_settings"
CREATE UNIQUE INDEX "birthsettings_farm_id_version" ON "birth_settings" ("farm_id", "version");
-- Create "follow_up_protocols" table
CREATE TABLE "follow_up_protocols" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "version" bigint NOT NULL, "steps" jsonb NOT NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "followupprotocol_farm_id_version" to table: "follow_up_protocols"
CREATE UNIQUE INDEX "followupprotocol_farm_id_version" ON "follow_up_protocols" ("farm_id", "version");
-- Create "task_updates" table
CREATE TABLE "task_updates" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "request_id" character varying NOT NULL, "task_id" uuid NOT NULL, "body_hash" character varying NOT NULL, "snapshot" bytea NOT NULL, PRIMARY KEY ("id"));
-- Create index "taskupdate_farm_id_request_id" to table: "task_updates"
CREATE UNIQUE INDEX "taskupdate_farm_id_request_id" ON "task_updates" ("farm_id", "request_id");
-- Create "birth_events" table
CREATE TABLE "birth_events" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "dam_id" uuid NOT NULL, "birth_date" character varying NOT NULL, "preview_id" uuid NOT NULL, "request_id" character varying NOT NULL, "settings_version" bigint NOT NULL, "protocol_version" bigint NOT NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "birthevent_farm_id_request_id" to table: "birth_events"
CREATE UNIQUE INDEX "birthevent_farm_id_request_id" ON "birth_events" ("farm_id", "request_id");
-- Create "farm_tasks" table
CREATE TABLE "farm_tasks" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "name" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'TODO', "due_date" timestamptz NULL, "protocol_version" bigint NOT NULL, "step" bigint NOT NULL, "birth_event_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "farm_tasks_birth_events_tasks" FOREIGN KEY ("birth_event_id") REFERENCES "birth_events" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "farmtask_farm_id_status_due_date" to table: "farm_tasks"
CREATE INDEX "farmtask_farm_id_status_due_date" ON "farm_tasks" ("farm_id", "status", "due_date");
-- Create "farm_task_animals" table
CREATE TABLE "farm_task_animals" ("farm_task_id" uuid NOT NULL, "animal_id" uuid NOT NULL, PRIMARY KEY ("farm_task_id", "animal_id"), CONSTRAINT "farm_task_animals_animal_id" FOREIGN KEY ("animal_id") REFERENCES "animals" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "farm_task_animals_farm_task_id" FOREIGN KEY ("farm_task_id") REFERENCES "farm_tasks" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
