-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_medicines" table
CREATE TABLE `new_medicines` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `farm_id` uuid NOT NULL, `name` text NOT NULL, `active_substance` text NULL, `version` integer NOT NULL, `withdrawal_meat_days` integer NULL, `withdrawal_milk_hours` integer NULL, `species_withdrawals` json NULL, `dry_cow` bool NOT NULL DEFAULT (false), PRIMARY KEY (`id`));
-- Copy rows from old table "medicines" to new temporary table "new_medicines"
INSERT INTO `new_medicines` (`id`, `created_at`, `updated_at`, `is_active`, `farm_id`, `name`, `active_substance`, `version`, `withdrawal_meat_days`, `withdrawal_milk_hours`, `species_withdrawals`) SELECT `id`, `created_at`, `updated_at`, `is_active`, `farm_id`, `name`, `active_substance`, `version`, `withdrawal_meat_days`, `withdrawal_milk_hours`, `species_withdrawals` FROM `medicines`;
-- Drop "medicines" table after copying rows
DROP TABLE `medicines`;
-- Rename temporary table "new_medicines" to "medicines"
ALTER TABLE `new_medicines` RENAME TO `medicines`;
-- Create index "medicine_farm_id_is_active_created_at" to table: "medicines"
CREATE INDEX `medicine_farm_id_is_active_created_at` ON `medicines` (`farm_id`, `is_active`, `created_at`);
-- Create "new_medicine_versions" table
CREATE TABLE `new_medicine_versions` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `medicine_id` uuid NOT NULL, `farm_id` uuid NOT NULL, `version` integer NOT NULL, `withdrawal_meat_days` integer NULL, `withdrawal_milk_hours` integer NULL, `species_withdrawals` json NULL, `dry_cow` bool NOT NULL DEFAULT (false), `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Copy rows from old table "medicine_versions" to new temporary table "new_medicine_versions"
INSERT INTO `new_medicine_versions` (`id`, `created_at`, `updated_at`, `medicine_id`, `farm_id`, `version`, `withdrawal_meat_days`, `withdrawal_milk_hours`, `species_withdrawals`, `created_by`) SELECT `id`, `created_at`, `updated_at`, `medicine_id`, `farm_id`, `version`, `withdrawal_meat_days`, `withdrawal_milk_hours`, `species_withdrawals`, `created_by` FROM `medicine_versions`;
-- Drop "medicine_versions" table after copying rows
DROP TABLE `medicine_versions`;
-- Rename temporary table "new_medicine_versions" to "medicine_versions"
ALTER TABLE `new_medicine_versions` RENAME TO `medicine_versions`;
-- Create index "medicineversion_medicine_id_version" to table: "medicine_versions"
CREATE UNIQUE INDEX `medicineversion_medicine_id_version` ON `medicine_versions` (`medicine_id`, `version`);
-- Create index "medicineversion_farm_id" to table: "medicine_versions"
CREATE INDEX `medicineversion_farm_id` ON `medicine_versions` (`farm_id`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
