-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_record_items" table
CREATE TABLE `new_record_items` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `is_active` bool NOT NULL DEFAULT (true), `name` text NULL, `description` text NULL, `metadata` json NULL, `fact_kind` text NULL, `fact_subject` uuid NULL, `fact_dam` uuid NULL, `fact_group` uuid NULL, `fact_date` text NULL, `fact_until` text NULL, `fact_value` text NULL, `fact_tail` text NULL, `record_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `record_items_records_items` FOREIGN KEY (`record_id`) REFERENCES `records` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "record_items" to new temporary table "new_record_items"
INSERT INTO `new_record_items` (`id`, `created_at`, `updated_at`, `is_active`, `name`, `description`, `metadata`, `fact_kind`, `fact_subject`, `fact_dam`, `fact_group`, `fact_date`, `fact_until`, `fact_value`, `record_id`) SELECT `id`, `created_at`, `updated_at`, `is_active`, `name`, `description`, `metadata`, `fact_kind`, `fact_subject`, `fact_dam`, `fact_group`, `fact_date`, `fact_until`, `fact_value`, `record_id` FROM `record_items`;
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
-- Index the last 6 digits of the identifiers already stored (herdbook.identifierTail):
-- SQLite has no regular expressions, so each value is read backwards a character at a time.
UPDATE `record_items` SET `fact_tail` = (
  WITH RECURSIVE t(i, d) AS (
    SELECT length(`record_items`.`fact_value`), ''
    UNION ALL
    SELECT i - 1, CASE WHEN substr(`record_items`.`fact_value`, i, 1) BETWEEN '0' AND '9'
      THEN substr(`record_items`.`fact_value`, i, 1) || d ELSE d END
    FROM t WHERE i > 0 AND length(d) < 6
  ) SELECT nullif(d, '') FROM t ORDER BY i LIMIT 1
) WHERE `fact_kind` = 'identifier' AND `fact_value` IS NOT NULL;
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
