-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_animals" table
CREATE TABLE `new_animals` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `tag` text NOT NULL, `name` text NULL, `change_seq` integer NOT NULL DEFAULT (0), `farm_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `animals_farms_animals` FOREIGN KEY (`farm_id`) REFERENCES `farms` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "animals" to new temporary table "new_animals"
INSERT INTO `new_animals` (`id`, `created_at`, `updated_at`, `is_active`, `tag`, `name`, `farm_id`) SELECT `id`, `created_at`, `updated_at`, `is_active`, `tag`, `name`, `farm_id` FROM `animals`;
-- Drop "animals" table after copying rows
DROP TABLE `animals`;
-- Rename temporary table "new_animals" to "animals"
ALTER TABLE `new_animals` RENAME TO `animals`;
-- Create index "animal_farm_id_is_active_created_at" to table: "animals"
CREATE INDEX `animal_farm_id_is_active_created_at` ON `animals` (`farm_id`, `is_active`, `created_at`);
-- Create index "animal_farm_id_change_seq" to table: "animals"
CREATE INDEX `animal_farm_id_change_seq` ON `animals` (`farm_id`, `change_seq`);
-- Create "new_farms" table
CREATE TABLE `new_farms` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `name` text NOT NULL, `allow_private_threads` bool NOT NULL DEFAULT (false), `current_month_start` datetime NULL, `species` text NOT NULL, `species_other` text NULL, `change_seq` integer NOT NULL DEFAULT (0), PRIMARY KEY (`id`));
-- Copy rows from old table "farms" to new temporary table "new_farms"
INSERT INTO `new_farms` (`id`, `created_at`, `updated_at`, `is_active`, `name`, `allow_private_threads`, `current_month_start`, `species`, `species_other`) SELECT `id`, `created_at`, `updated_at`, `is_active`, `name`, `allow_private_threads`, `current_month_start`, `species`, `species_other` FROM `farms`;
-- Drop "farms" table after copying rows
DROP TABLE `farms`;
-- Rename temporary table "new_farms" to "farms"
ALTER TABLE `new_farms` RENAME TO `farms`;
-- Create index "farm_created_at" to table: "farms"
CREATE INDEX `farm_created_at` ON `farms` (`created_at`);
-- Create index "farm_change_seq" to table: "farms"
CREATE INDEX `farm_change_seq` ON `farms` (`change_seq`);
-- Create "new_records" table
CREATE TABLE `new_records` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `type` text NOT NULL, `name` text NOT NULL, `description` text NULL, `applied_at` datetime NOT NULL, `change_seq` integer NOT NULL DEFAULT (0), `farm_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `records_farms_records` FOREIGN KEY (`farm_id`) REFERENCES `farms` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "records" to new temporary table "new_records"
INSERT INTO `new_records` (`id`, `created_at`, `updated_at`, `is_active`, `type`, `name`, `description`, `applied_at`, `farm_id`) SELECT `id`, `created_at`, `updated_at`, `is_active`, `type`, `name`, `description`, `applied_at`, `farm_id` FROM `records`;
-- Drop "records" table after copying rows
DROP TABLE `records`;
-- Rename temporary table "new_records" to "records"
ALTER TABLE `new_records` RENAME TO `records`;
-- Create index "record_farm_id_is_active_created_at" to table: "records"
CREATE INDEX `record_farm_id_is_active_created_at` ON `records` (`farm_id`, `is_active`, `created_at`);
-- Create index "record_farm_id_change_seq" to table: "records"
CREATE INDEX `record_farm_id_change_seq` ON `records` (`farm_id`, `change_seq`);
-- Create "new_farm_tasks" table
CREATE TABLE `new_farm_tasks` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `name` text NOT NULL, `status` text NOT NULL DEFAULT ('TODO'), `due_date` datetime NULL, `protocol_version` integer NOT NULL, `step` integer NOT NULL, `change_seq` integer NOT NULL DEFAULT (0), `birth_event_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `farm_tasks_birth_events_tasks` FOREIGN KEY (`birth_event_id`) REFERENCES `birth_events` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "farm_tasks" to new temporary table "new_farm_tasks"
INSERT INTO `new_farm_tasks` (`id`, `created_at`, `updated_at`, `farm_id`, `name`, `status`, `due_date`, `protocol_version`, `step`, `birth_event_id`) SELECT `id`, `created_at`, `updated_at`, `farm_id`, `name`, `status`, `due_date`, `protocol_version`, `step`, `birth_event_id` FROM `farm_tasks`;
-- Drop "farm_tasks" table after copying rows
DROP TABLE `farm_tasks`;
-- Rename temporary table "new_farm_tasks" to "farm_tasks"
ALTER TABLE `new_farm_tasks` RENAME TO `farm_tasks`;
-- Create index "farmtask_farm_id_status_due_date" to table: "farm_tasks"
CREATE INDEX `farmtask_farm_id_status_due_date` ON `farm_tasks` (`farm_id`, `status`, `due_date`);
-- Create index "farmtask_farm_id_change_seq" to table: "farm_tasks"
CREATE INDEX `farmtask_farm_id_change_seq` ON `farm_tasks` (`farm_id`, `change_seq`);
-- Create "change_counters" table
CREATE TABLE `change_counters` (`id` uuid NOT NULL, `seq` integer NOT NULL DEFAULT (0), PRIMARY KEY (`id`));
-- Create "webhook_attempts" table
CREATE TABLE `webhook_attempts` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `status_code` integer NULL, `error` text NULL, `response` text NULL, `duration_ms` integer NOT NULL, `worker` text NULL, `delivery_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `webhook_attempts_webhook_deliveries_attempt_log` FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries` (`id`) ON DELETE CASCADE);
-- Create index "webhookattempt_delivery_id_created_at" to table: "webhook_attempts"
CREATE INDEX `webhookattempt_delivery_id_created_at` ON `webhook_attempts` (`delivery_id`, `created_at`);
-- Create "webhook_deliveries" table
CREATE TABLE `webhook_deliveries` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `status` text NOT NULL DEFAULT ('PENDING'), `attempts` integer NOT NULL DEFAULT (0), `next_attempt_at` datetime NOT NULL, `lease_until` datetime NULL, `leased_by` text NULL, `last_status_code` integer NULL, `last_error` text NULL, `delivered_at` datetime NULL, `endpoint_id` uuid NOT NULL, `event_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `webhook_deliveries_webhook_endpoints_deliveries` FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints` (`id`) ON DELETE CASCADE, CONSTRAINT `webhook_deliveries_webhook_events_deliveries` FOREIGN KEY (`event_id`) REFERENCES `webhook_events` (`id`) ON DELETE CASCADE);
-- Create index "webhookdelivery_event_id_endpoint_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX `webhookdelivery_event_id_endpoint_id` ON `webhook_deliveries` (`event_id`, `endpoint_id`);
-- Create index "webhookdelivery_status_next_attempt_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_status_next_attempt_at` ON `webhook_deliveries` (`status`, `next_attempt_at`);
-- Create index "webhookdelivery_endpoint_id_created_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_endpoint_id_created_at` ON `webhook_deliveries` (`endpoint_id`, `created_at`);
-- Create "webhook_endpoints" table
CREATE TABLE `webhook_endpoints` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `url` text NOT NULL, `description` text NULL, `event_types` json NOT NULL, `secret` text NOT NULL, `enabled` bool NOT NULL DEFAULT (true), `disabled_reason` text NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "webhookendpoint_farm_id_created_at" to table: "webhook_endpoints"
CREATE INDEX `webhookendpoint_farm_id_created_at` ON `webhook_endpoints` (`farm_id`, `created_at`);
-- Create "webhook_events" table
CREATE TABLE `webhook_events` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `type` text NOT NULL, `subject_id` uuid NOT NULL, `payload` blob NOT NULL, PRIMARY KEY (`id`));
-- Create index "webhookevent_farm_id_created_at" to table: "webhook_events"
CREATE INDEX `webhookevent_farm_id_created_at` ON `webhook_events` (`farm_id`, `created_at`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
