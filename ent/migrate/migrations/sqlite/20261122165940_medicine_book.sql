-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_records" table
CREATE TABLE `new_records` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `type` text NOT NULL, `name` text NOT NULL, `description` text NULL, `applied_at` datetime NOT NULL, `acknowledge_withdrawal` bool NOT NULL DEFAULT (false), `change_seq` integer NOT NULL DEFAULT (0), `farm_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `records_farms_records` FOREIGN KEY (`farm_id`) REFERENCES `farms` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "records" to new temporary table "new_records"
INSERT INTO `new_records` (`id`, `created_at`, `updated_at`, `is_active`, `type`, `name`, `description`, `applied_at`, `change_seq`, `farm_id`) SELECT `id`, `created_at`, `updated_at`, `is_active`, `type`, `name`, `description`, `applied_at`, `change_seq`, `farm_id` FROM `records`;
-- Drop "records" table after copying rows
DROP TABLE `records`;
-- Rename temporary table "new_records" to "records"
ALTER TABLE `new_records` RENAME TO `records`;
-- Create index "record_farm_id_is_active_created_at" to table: "records"
CREATE INDEX `record_farm_id_is_active_created_at` ON `records` (`farm_id`, `is_active`, `created_at`);
-- Create index "record_farm_id_change_seq" to table: "records"
CREATE INDEX `record_farm_id_change_seq` ON `records` (`farm_id`, `change_seq`);
-- Create "medicines" table
CREATE TABLE `medicines` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `farm_id` uuid NOT NULL, `name` text NOT NULL, `active_substance` text NULL, `version` integer NOT NULL, `withdrawal_meat_days` integer NOT NULL, `withdrawal_milk_hours` integer NOT NULL, `species_withdrawals` json NULL, PRIMARY KEY (`id`));
-- Create index "medicine_farm_id_is_active_created_at" to table: "medicines"
CREATE INDEX `medicine_farm_id_is_active_created_at` ON `medicines` (`farm_id`, `is_active`, `created_at`);
-- Create "medicine_versions" table
CREATE TABLE `medicine_versions` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `medicine_id` uuid NOT NULL, `farm_id` uuid NOT NULL, `version` integer NOT NULL, `withdrawal_meat_days` integer NOT NULL, `withdrawal_milk_hours` integer NOT NULL, `species_withdrawals` json NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "medicineversion_medicine_id_version" to table: "medicine_versions"
CREATE UNIQUE INDEX `medicineversion_medicine_id_version` ON `medicine_versions` (`medicine_id`, `version`);
-- Create index "medicineversion_farm_id" to table: "medicine_versions"
CREATE INDEX `medicineversion_farm_id` ON `medicine_versions` (`farm_id`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
