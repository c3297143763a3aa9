-- A record's links to its animals and groups name the record's farm (docs/scaling.md): the join
-- tables of Record.animals and Record.groups become the edge schemas RecordAnimal and
-- RecordGroup with a farm_id, filled from the record while the rows are copied (SQLite rebuilds
-- a table to add a NOT NULL column). A link whose record is missing gets no farm and fails the
-- migration rather than being dropped.
-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_record_animals" table
CREATE TABLE `new_record_animals` (`farm_id` uuid NOT NULL, `record_id` uuid NOT NULL, `animal_id` uuid NOT NULL, PRIMARY KEY (`record_id`, `animal_id`), CONSTRAINT `record_animals_records_record` FOREIGN KEY (`record_id`) REFERENCES `records` (`id`) ON DELETE CASCADE, CONSTRAINT `record_animals_animals_animal` FOREIGN KEY (`animal_id`) REFERENCES `animals` (`id`) ON DELETE CASCADE);
-- Copy rows from old table "record_animals" to new temporary table "new_record_animals", each with its record's farm
INSERT INTO `new_record_animals` (`farm_id`, `record_id`, `animal_id`) SELECT `r`.`farm_id`, `l`.`record_id`, `l`.`animal_id` FROM `record_animals` AS `l` LEFT JOIN `records` AS `r` ON `r`.`id` = `l`.`record_id`;
-- Drop "record_animals" table after copying rows
DROP TABLE `record_animals`;
-- Rename temporary table "new_record_animals" to "record_animals"
ALTER TABLE `new_record_animals` RENAME TO `record_animals`;
-- Create index "record_animals_animal_id_record_id" to table: "record_animals"
CREATE INDEX `record_animals_animal_id_record_id` ON `record_animals` (`animal_id`, `record_id`);
-- Create "new_record_groups" table
CREATE TABLE `new_record_groups` (`farm_id` uuid NOT NULL, `record_id` uuid NOT NULL, `group_id` uuid NOT NULL, PRIMARY KEY (`record_id`, `group_id`), CONSTRAINT `record_groups_records_record` FOREIGN KEY (`record_id`) REFERENCES `records` (`id`) ON DELETE CASCADE, CONSTRAINT `record_groups_groups_group` FOREIGN KEY (`group_id`) REFERENCES `groups` (`id`) ON DELETE CASCADE);
-- Copy rows from old table "record_groups" to new temporary table "new_record_groups", each with its record's farm
INSERT INTO `new_record_groups` (`farm_id`, `record_id`, `group_id`) SELECT `r`.`farm_id`, `l`.`record_id`, `l`.`group_id` FROM `record_groups` AS `l` LEFT JOIN `records` AS `r` ON `r`.`id` = `l`.`record_id`;
-- Drop "record_groups" table after copying rows
DROP TABLE `record_groups`;
-- Rename temporary table "new_record_groups" to "record_groups"
ALTER TABLE `new_record_groups` RENAME TO `record_groups`;
-- Create index "record_groups_group_id_record_id" to table: "record_groups"
CREATE INDEX `record_groups_group_id_record_id` ON `record_groups` (`group_id`, `record_id`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
