-- Every row a farm owns names its farm (docs/scaling.md): record items, their fact links,
-- thread messages and webhook attempts get the farm of the row they hang from. SQLite cannot
-- add a NOT NULL column to rows that exist, so each table is rebuilt as Atlas rebuilds one,
-- with farm_id filled from the parent while the rows are copied (record_items before
-- fact_animals, which read it). A row whose parent is missing gets no farm and fails the
-- migration (NOT NULL) rather than being dropped.
-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_record_items" table
CREATE TABLE `new_record_items` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `name` text NULL, `description` text NULL, `metadata` json NULL, `fact_kind` text NULL, `fact_subject` uuid NULL, `fact_dam` uuid NULL, `fact_group` uuid NULL, `fact_date` text NULL, `fact_until` text NULL, `fact_value` text NULL, `fact_tail` text NULL, `record_id` uuid NOT NULL, `recorded_at` datetime NULL, `recorded_by_user_id` uuid NULL, `recorded_by_client_id` text NULL, `voided_at` datetime NULL, `voided_by_user_id` uuid NULL, `voided_by_client_id` text NULL, `void_reason` text NULL, `amends_id` uuid NULL, `superseded_by_id` uuid NULL, `farm_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `record_items_records_items` FOREIGN KEY (`record_id`) REFERENCES `records` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "record_items" to new temporary table "new_record_items", each with its record's farm
INSERT INTO `new_record_items` (`id`, `created_at`, `updated_at`, `is_active`, `name`, `description`, `metadata`, `fact_kind`, `fact_subject`, `fact_dam`, `fact_group`, `fact_date`, `fact_until`, `fact_value`, `fact_tail`, `record_id`, `recorded_at`, `recorded_by_user_id`, `recorded_by_client_id`, `voided_at`, `voided_by_user_id`, `voided_by_client_id`, `void_reason`, `amends_id`, `superseded_by_id`, `farm_id`) SELECT `i`.`id`, `i`.`created_at`, `i`.`updated_at`, `i`.`is_active`, `i`.`name`, `i`.`description`, `i`.`metadata`, `i`.`fact_kind`, `i`.`fact_subject`, `i`.`fact_dam`, `i`.`fact_group`, `i`.`fact_date`, `i`.`fact_until`, `i`.`fact_value`, `i`.`fact_tail`, `i`.`record_id`, `i`.`recorded_at`, `i`.`recorded_by_user_id`, `i`.`recorded_by_client_id`, `i`.`voided_at`, `i`.`voided_by_user_id`, `i`.`voided_by_client_id`, `i`.`void_reason`, `i`.`amends_id`, `i`.`superseded_by_id`, `r`.`farm_id` FROM `record_items` AS `i` LEFT JOIN `records` AS `r` ON `r`.`id` = `i`.`record_id`;
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
-- Create index "recorditem_fact_value_fact_kind" to table: "record_items"
CREATE INDEX `recorditem_fact_value_fact_kind` ON `record_items` (`fact_value`, `fact_kind`);
-- Create index "recorditem_fact_tail_fact_kind" to table: "record_items"
CREATE INDEX `recorditem_fact_tail_fact_kind` ON `record_items` (`fact_tail`, `fact_kind`);
-- Create index "recorditem_fact_kind_fact_date" to table: "record_items"
CREATE INDEX `recorditem_fact_kind_fact_date` ON `record_items` (`fact_kind`, `fact_date`);
-- Create "new_fact_animals" table
CREATE TABLE `new_fact_animals` (`id` uuid NOT NULL, `animal_id` uuid NOT NULL, `record_item_id` uuid NOT NULL, `farm_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `fact_animals_record_items_fact_animals` FOREIGN KEY (`record_item_id`) REFERENCES `record_items` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "fact_animals" to new temporary table "new_fact_animals", each with its item's farm
INSERT INTO `new_fact_animals` (`id`, `animal_id`, `record_item_id`, `farm_id`) SELECT `f`.`id`, `f`.`animal_id`, `f`.`record_item_id`, `i`.`farm_id` FROM `fact_animals` AS `f` LEFT JOIN `record_items` AS `i` ON `i`.`id` = `f`.`record_item_id`;
-- Drop "fact_animals" table after copying rows
DROP TABLE `fact_animals`;
-- Rename temporary table "new_fact_animals" to "fact_animals"
ALTER TABLE `new_fact_animals` RENAME TO `fact_animals`;
-- Create index "factanimal_animal_id" to table: "fact_animals"
CREATE INDEX `factanimal_animal_id` ON `fact_animals` (`animal_id`);
-- Create index "factanimal_record_item_id_animal_id" to table: "fact_animals"
CREATE UNIQUE INDEX `factanimal_record_item_id_animal_id` ON `fact_animals` (`record_item_id`, `animal_id`);
-- Create "new_messages" table
CREATE TABLE `new_messages` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `author_id` uuid NOT NULL, `body` text NOT NULL, `thread_id` uuid NOT NULL, `farm_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `messages_threads_messages` FOREIGN KEY (`thread_id`) REFERENCES `threads` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "messages" to new temporary table "new_messages", each with its thread's farm
INSERT INTO `new_messages` (`id`, `created_at`, `updated_at`, `is_active`, `author_id`, `body`, `thread_id`, `farm_id`) SELECT `m`.`id`, `m`.`created_at`, `m`.`updated_at`, `m`.`is_active`, `m`.`author_id`, `m`.`body`, `m`.`thread_id`, `t`.`farm_id` FROM `messages` AS `m` LEFT JOIN `threads` AS `t` ON `t`.`id` = `m`.`thread_id`;
-- Drop "messages" table after copying rows
DROP TABLE `messages`;
-- Rename temporary table "new_messages" to "messages"
ALTER TABLE `new_messages` RENAME TO `messages`;
-- Create index "message_thread_id_created_at" to table: "messages"
CREATE INDEX `message_thread_id_created_at` ON `messages` (`thread_id`, `created_at`);
-- Create "new_webhook_attempts" table
CREATE TABLE `new_webhook_attempts` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `status_code` integer NULL, `error` text NULL, `response` text NULL, `duration_ms` integer NOT NULL, `worker` text NULL, `delivery_id` uuid NOT NULL, `farm_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `webhook_attempts_webhook_deliveries_attempt_log` FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries` (`id`) ON DELETE CASCADE);
-- Copy rows from old table "webhook_attempts" to new temporary table "new_webhook_attempts", each with its delivery's farm
INSERT INTO `new_webhook_attempts` (`id`, `created_at`, `updated_at`, `status_code`, `error`, `response`, `duration_ms`, `worker`, `delivery_id`, `farm_id`) SELECT `a`.`id`, `a`.`created_at`, `a`.`updated_at`, `a`.`status_code`, `a`.`error`, `a`.`response`, `a`.`duration_ms`, `a`.`worker`, `a`.`delivery_id`, `d`.`farm_id` FROM `webhook_attempts` AS `a` LEFT JOIN `webhook_deliveries` AS `d` ON `d`.`id` = `a`.`delivery_id`;
-- Drop "webhook_attempts" table after copying rows
DROP TABLE `webhook_attempts`;
-- Rename temporary table "new_webhook_attempts" to "webhook_attempts"
ALTER TABLE `new_webhook_attempts` RENAME TO `webhook_attempts`;
-- Create index "webhookattempt_delivery_id_created_at" to table: "webhook_attempts"
CREATE INDEX `webhookattempt_delivery_id_created_at` ON `webhook_attempts` (`delivery_id`, `created_at`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
