-- A follow-up task's links to its animals name the task's farm (docs/scaling.md): the join
-- table of FarmTask.animals becomes the edge schema FarmTaskAnimal with a farm_id, filled from
-- the task while the rows are copied (SQLite rebuilds the table to add a NOT NULL column). A
-- link whose task is missing gets no farm and fails the migration rather than being dropped.
-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_farm_task_animals" table
CREATE TABLE `new_farm_task_animals` (`farm_id` uuid NOT NULL, `farm_task_id` uuid NOT NULL, `animal_id` uuid NOT NULL, PRIMARY KEY (`farm_task_id`, `animal_id`), CONSTRAINT `farm_task_animals_farm_tasks_farm_task` FOREIGN KEY (`farm_task_id`) REFERENCES `farm_tasks` (`id`) ON DELETE CASCADE, CONSTRAINT `farm_task_animals_animals_animal` FOREIGN KEY (`animal_id`) REFERENCES `animals` (`id`) ON DELETE CASCADE);
-- Copy rows from old table "farm_task_animals" to new temporary table "new_farm_task_animals", each with its task's farm
INSERT INTO `new_farm_task_animals` (`farm_id`, `farm_task_id`, `animal_id`) SELECT `t`.`farm_id`, `l`.`farm_task_id`, `l`.`animal_id` FROM `farm_task_animals` AS `l` LEFT JOIN `farm_tasks` AS `t` ON `t`.`id` = `l`.`farm_task_id`;
-- Drop "farm_task_animals" table after copying rows
DROP TABLE `farm_task_animals`;
-- Rename temporary table "new_farm_task_animals" to "farm_task_animals"
ALTER TABLE `new_farm_task_animals` RENAME TO `farm_task_animals`;
-- Create index "farm_task_animals_animal_id_farm_task_id" to table: "farm_task_animals"
CREATE INDEX `farm_task_animals_animal_id_farm_task_id` ON `farm_task_animals` (`animal_id`, `farm_task_id`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
