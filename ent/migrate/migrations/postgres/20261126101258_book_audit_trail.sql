-- Modify "record_items" table
ALTER TABLE "record_items" ADD COLUMN "recorded_at" timestamptz NULL, ADD COLUMN "recorded_by_user_id" uuid NULL, ADD COLUMN "recorded_by_client_id" character varying NULL, ADD COLUMN "voided_at" timestamptz NULL, ADD COLUMN "voided_by_user_id" uuid NULL, ADD COLUMN "voided_by_client_id" character varying NULL, ADD COLUMN "void_reason" character varying NULL, ADD COLUMN "amends_id" uuid NULL, ADD COLUMN "superseded_by_id" uuid NULL;
-- Modify "records" table
ALTER TABLE "records" ADD COLUMN "recorded_at" timestamptz NULL, ADD COLUMN "recorded_by_user_id" uuid NULL, ADD COLUMN "recorded_by_client_id" character varying NULL, ADD COLUMN "voided_at" timestamptz NULL, ADD COLUMN "voided_by_user_id" uuid NULL, ADD COLUMN "voided_by_client_id" character varying NULL, ADD COLUMN "void_reason" character varying NULL, ADD COLUMN "amends_id" uuid NULL, ADD COLUMN "superseded_by_id" uuid NULL;
-- Create "audit_entries" table
CREATE TABLE "audit_entries" ("id" uuid NOT NULL, "farm_id" uuid NOT NULL, "at" timestamptz NOT NULL, "user_id" uuid NULL, "client_id" character varying NULL, "action" character varying NOT NULL, "entity" character varying NOT NULL, "record_id" uuid NOT NULL, "record_item_id" uuid NULL, "reason" character varying NULL, "old_value" jsonb NULL, "new_value" jsonb NULL, PRIMARY KEY ("id"));
-- Create index "auditentry_farm_id_at_id" to table: "audit_entries"
CREATE INDEX "auditentry_farm_id_at_id" ON "audit_entries" ("farm_id", "at", "id");
-- Create index "auditentry_farm_id_user_id_at" to table: "audit_entries"
CREATE INDEX "auditentry_farm_id_user_id_at" ON "audit_entries" ("farm_id", "user_id", "at");
-- Create index "auditentry_record_id" to table: "audit_entries"
CREATE INDEX "auditentry_record_id" ON "audit_entries" ("record_id");
-- Entries written before the book kept its authors: no author, recorded when created, and
-- those already deleted voided when they last changed (the best record of it there is).
UPDATE records SET recorded_at = created_at;
UPDATE record_items SET recorded_at = created_at;
UPDATE records SET voided_at = updated_at WHERE is_active = false;
UPDATE record_items SET voided_at = updated_at WHERE is_active = false;
