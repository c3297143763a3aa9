-- A file's links to its records name the file's farm (docs/scaling.md): the join table of
-- File.records becomes the edge schema FileRecord with a farm_id, filled from the file while
-- the rows are copied (SQLite rebuilds a table to add a NOT NULL column). A link whose file is
-- missing gets no farm and fails the migration rather than being dropped.
-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_file_records" table
CREATE TABLE `new_file_records` (`farm_id` uuid NOT NULL, `file_id` uuid NOT NULL, `record_id` uuid NOT NULL, PRIMARY KEY (`file_id`, `record_id`), CONSTRAINT `file_records_files_file` FOREIGN KEY (`file_id`) REFERENCES `files` (`id`) ON DELETE CASCADE, CONSTRAINT `file_records_records_record` FOREIGN KEY (`record_id`) REFERENCES `records` (`id`) ON DELETE CASCADE);
-- Copy rows from old table "file_records" to new temporary table "new_file_records", each with its file's farm
INSERT INTO `new_file_records` (`farm_id`, `file_id`, `record_id`) SELECT `f`.`farm_id`, `l`.`file_id`, `l`.`record_id` FROM `file_records` AS `l` LEFT JOIN `files` AS `f` ON `f`.`id` = `l`.`file_id`;
-- Drop "file_records" table after copying rows
DROP TABLE `file_records`;
-- Rename temporary table "new_file_records" to "file_records"
ALTER TABLE `new_file_records` RENAME TO `file_records`;
-- Create index "file_records_record_id_file_id" to table: "file_records"
CREATE INDEX `file_records_record_id_file_id` ON `file_records` (`record_id`, `file_id`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
