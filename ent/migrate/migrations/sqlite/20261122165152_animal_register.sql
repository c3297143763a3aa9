-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_record_items" table
CREATE TABLE `new_record_items` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `name` text NULL, `description` text NULL, `metadata` json NULL, `fact_kind` text NULL, `fact_subject` uuid NULL, `fact_dam` uuid NULL, `fact_group` uuid NULL, `fact_date` text NULL, `fact_until` text NULL, `fact_value` text NULL, `record_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `record_items_records_items` FOREIGN KEY (`record_id`) REFERENCES `records` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "record_items" to new temporary table "new_record_items"
INSERT INTO `new_record_items` (`id`, `created_at`, `updated_at`, `is_active`, `name`, `description`, `metadata`, `fact_kind`, `fact_subject`, `fact_dam`, `fact_group`, `fact_date`, `fact_until`, `record_id`) SELECT `id`, `created_at`, `updated_at`, `is_active`, `name`, `description`, `metadata`, `fact_kind`, `fact_subject`, `fact_dam`, `fact_group`, `fact_date`, `fact_until`, `record_id` FROM `record_items`;
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
-- Create index "recorditem_fact_kind_fact_date" to table: "record_items"
CREATE INDEX `recorditem_fact_kind_fact_date` ON `record_items` (`fact_kind`, `fact_date`);
-- Create "fact_animals" table
CREATE TABLE `fact_animals` (`id` uuid NOT NULL, `animal_id` uuid NOT NULL, `record_item_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `fact_animals_record_items_fact_animals` FOREIGN KEY (`record_item_id`) REFERENCES `record_items` (`id`) ON DELETE NO ACTION);
-- Create index "factanimal_animal_id" to table: "fact_animals"
CREATE INDEX `factanimal_animal_id` ON `fact_animals` (`animal_id`);
-- Create index "factanimal_record_item_id_animal_id" to table: "fact_animals"
CREATE UNIQUE INDEX `factanimal_record_item_id_animal_id` ON `fact_animals` (`record_item_id`, `animal_id`);
-- Link the facts already stored to every animal they name: the subject, an exposure's or
-- birth's dam, a birth's sire and each of its offspring.
INSERT INTO `fact_animals` (`id`, `animal_id`, `record_item_id`)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))), l.`animal_id`, l.`item_id` FROM (
  SELECT `id` AS `item_id`, `fact_subject` AS `animal_id` FROM `record_items` WHERE `fact_subject` IS NOT NULL
  UNION SELECT `id`, `fact_dam` FROM `record_items` WHERE `fact_dam` IS NOT NULL
  UNION SELECT `id`, json_extract(`metadata`, '$.birth_history.sire_id') FROM `record_items`
    WHERE `fact_kind` = 'birth' AND json_extract(`metadata`, '$.birth_history.sire_id') IS NOT NULL
  UNION SELECT ri.`id`, o.`value` FROM `record_items` ri, json_each(ri.`metadata`, '$.birth_history.offspring_ids') o
    WHERE ri.`fact_kind` = 'birth' AND json_type(ri.`metadata`, '$.birth_history.offspring_ids') = 'array'
) l;
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
