-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_record_items" table
CREATE TABLE `new_record_items` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `name` text NULL, `description` text NULL, `metadata` json NULL, `fact_kind` text NULL, `fact_subject` uuid NULL, `fact_dam` uuid NULL, `fact_group` uuid NULL, `fact_date` text NULL, `fact_until` text NULL, `record_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `record_items_records_items` FOREIGN KEY (`record_id`) REFERENCES `records` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "record_items" to new temporary table "new_record_items"
INSERT INTO `new_record_items` (`id`, `created_at`, `updated_at`, `is_active`, `name`, `description`, `metadata`, `record_id`) SELECT `id`, `created_at`, `updated_at`, `is_active`, `name`, `description`, `metadata`, `record_id` FROM `record_items`;
-- Drop "record_items" table after copying rows
DROP TABLE `record_items`;
-- Rename temporary table "new_record_items" to "record_items"
ALTER TABLE `new_record_items` RENAME TO `record_items`;
-- Create index "recorditem_record_id_is_active" to table: "record_items"
CREATE INDEX `recorditem_record_id_is_active` ON `record_items` (`record_id`, `is_active`);
-- Create index "recorditem_fact_subject" to table: "record_items"
CREATE INDEX `recorditem_fact_subject` ON `record_items` (`fact_subject`);
-- Create index "recorditem_fact_dam" to table: "record_items"
CREATE INDEX `recorditem_fact_dam` ON `record_items` (`fact_dam`);
-- Create index "recorditem_fact_group_fact_kind" to table: "record_items"
CREATE INDEX `recorditem_fact_group_fact_kind` ON `record_items` (`fact_group`, `fact_kind`);
-- Create "birth_events" table
CREATE TABLE `birth_events` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `dam_id` uuid NOT NULL, `birth_date` text NOT NULL, `preview_id` uuid NOT NULL, `request_id` text NOT NULL, `settings_version` integer NOT NULL, `protocol_version` integer NOT NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "birthevent_farm_id_request_id" to table: "birth_events"
CREATE UNIQUE INDEX `birthevent_farm_id_request_id` ON `birth_events` (`farm_id`, `request_id`);
-- Create "birth_previews" table
CREATE TABLE `birth_previews` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `dam_id` uuid NOT NULL, `birth_date` text NOT NULL, `settings_version` integer NOT NULL, `protocol_version` integer NOT NULL, `evidence` json NOT NULL, `tasks` json NOT NULL, `stale` bool NOT NULL DEFAULT (false), `approved_at` datetime NULL, `birth_event_id` uuid NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "birthpreview_farm_id_stale" to table: "birth_previews"
CREATE INDEX `birthpreview_farm_id_stale` ON `birth_previews` (`farm_id`, `stale`);
-- Create "birth_settings" table
CREATE TABLE `birth_settings` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `version` integer NOT NULL, `settings` json NOT NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "birthsettings_farm_id_version" to table: "birth_settings"
CREATE UNIQUE INDEX `birthsettings_farm_id_version` ON `birth_settings` (`farm_id`, `version`);
-- Create "farm_tasks" table
CREATE TABLE `farm_tasks` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `name` text NOT NULL, `status` text NOT NULL DEFAULT ('TODO'), `due_date` datetime NULL, `protocol_version` integer NOT NULL, `step` integer NOT NULL, `birth_event_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `farm_tasks_birth_events_tasks` FOREIGN KEY (`birth_event_id`) REFERENCES `birth_events` (`id`) ON DELETE NO ACTION);
-- Create index "farmtask_farm_id_status_due_date" to table: "farm_tasks"
CREATE INDEX `farmtask_farm_id_status_due_date` ON `farm_tasks` (`farm_id`, `status`, `due_date`);
-- Create "follow_up_protocols" table
CREATE TABLE `follow_up_protocols` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `version` integer NOT NULL, `steps` json NOT NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "followupprotocol_farm_id_version" to table: "follow_up_protocols"
CREATE UNIQUE INDEX `followupprotocol_farm_id_version` ON `follow_up_protocols` (`farm_id`, `version`);
-- Create "task_updates" table
CREATE TABLE `task_updates` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `request_id` text NOT NULL, `task_id` uuid NOT NULL, `body_hash` text NOT NULL, `snapshot` blob NOT NULL, PRIMARY KEY (`id`));
-- Create index "taskupdate_farm_id_request_id" to table: "task_updates"
CREATE UNIQUE INDEX `taskupdate_farm_id_request_id` ON `task_updates` (`farm_id`, `request_id`);
-- Create "farm_task_animals" table
CREATE TABLE `farm_task_animals` (`farm_task_id` uuid NOT NULL, `animal_id` uuid NOT NULL, PRIMARY KEY (`farm_task_id`, `animal_id`), CONSTRAINT `farm_task_animals_farm_task_id` FOREIGN KEY (`farm_task_id`) REFERENCES `farm_tasks` (`id`) ON DELETE CASCADE, CONSTRAINT `farm_task_animals_animal_id` FOREIGN KEY (`animal_id`) REFERENCES `animals` (`id`) ON DELETE CASCADE);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
