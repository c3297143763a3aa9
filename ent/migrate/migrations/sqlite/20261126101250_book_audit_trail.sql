-- Add column "recorded_at" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `recorded_at` datetime NULL;
-- Add column "recorded_by_user_id" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `recorded_by_user_id` uuid NULL;
-- Add column "recorded_by_client_id" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `recorded_by_client_id` text NULL;
-- Add column "voided_at" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `voided_at` datetime NULL;
-- Add column "voided_by_user_id" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `voided_by_user_id` uuid NULL;
-- Add column "voided_by_client_id" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `voided_by_client_id` text NULL;
-- Add column "void_reason" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `void_reason` text NULL;
-- Add column "amends_id" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `amends_id` uuid NULL;
-- Add column "superseded_by_id" to table: "record_items"
ALTER TABLE `record_items` ADD COLUMN `superseded_by_id` uuid NULL;
-- Add column "recorded_at" to table: "records"
ALTER TABLE `records` ADD COLUMN `recorded_at` datetime NULL;
-- Add column "recorded_by_user_id" to table: "records"
ALTER TABLE `records` ADD COLUMN `recorded_by_user_id` uuid NULL;
-- Add column "recorded_by_client_id" to table: "records"
ALTER TABLE `records` ADD COLUMN `recorded_by_client_id` text NULL;
-- Add column "voided_at" to table: "records"
ALTER TABLE `records` ADD COLUMN `voided_at` datetime NULL;
-- Add column "voided_by_user_id" to table: "records"
ALTER TABLE `records` ADD COLUMN `voided_by_user_id` uuid NULL;
-- Add column "voided_by_client_id" to table: "records"
ALTER TABLE `records` ADD COLUMN `voided_by_client_id` text NULL;
-- Add column "void_reason" to table: "records"
ALTER TABLE `records` ADD COLUMN `void_reason` text NULL;
-- Add column "amends_id" to table: "records"
ALTER TABLE `records` ADD COLUMN `amends_id` uuid NULL;
-- Add column "superseded_by_id" to table: "records"
ALTER TABLE `records` ADD COLUMN `superseded_by_id` uuid NULL;
-- Create "audit_entries" table
CREATE TABLE `audit_entries` (`id` uuid NOT NULL, `farm_id` uuid NOT NULL, `at` datetime NOT NULL, `user_id` uuid NULL, `client_id` text NULL, `action` text NOT NULL, `entity` text NOT NULL, `record_id` uuid NOT NULL, `record_item_id` uuid NULL, `reason` text NULL, `old_value` json NULL, `new_value` json NULL, PRIMARY KEY (`id`));
-- Create index "auditentry_farm_id_at_id" to table: "audit_entries"
CREATE INDEX `auditentry_farm_id_at_id` ON `audit_entries` (`farm_id`, `at`, `id`);
-- Create index "auditentry_record_id" to table: "audit_entries"
CREATE INDEX `auditentry_record_id` ON `audit_entries` (`record_id`);
-- Create index "auditentry_farm_id_user_id_at" to table: "audit_entries"
CREATE INDEX `auditentry_farm_id_user_id_at` ON `audit_entries` (`farm_id`, `user_id`, `at`);
-- Entries written before the book kept its authors: no author, recorded when created, and
-- those already deleted voided when they last changed (the best record of it there is).
UPDATE records SET recorded_at = created_at;
UPDATE record_items SET recorded_at = created_at;
UPDATE records SET voided_at = updated_at WHERE is_active = false;
UPDATE record_items SET voided_at = updated_at WHERE is_active = false;
