-- A follow-up task's links to its animals name the task's farm (docs/scaling.md): the join
-- table of FarmTask.animals becomes the edge schema FarmTaskAnimal with a farm_id, filled from
-- the task before it becomes NOT NULL (a link whose task is missing fails the migration rather
-- than being dropped), and its foreign keys take the edge schema's names, cascading as before.
-- Modify "farm_task_animals" table
ALTER TABLE "farm_task_animals" DROP CONSTRAINT "farm_task_animals_animal_id", DROP CONSTRAINT "farm_task_animals_farm_task_id", ADD COLUMN "farm_id" uuid NULL, ADD CONSTRAINT "farm_task_animals_animals_animal" FOREIGN KEY ("animal_id") REFERENCES "animals" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "farm_task_animals_farm_tasks_farm_task" FOREIGN KEY ("farm_task_id") REFERENCES "farm_tasks" ("id") ON UPDATE NO ACTION ON DELETE CASCADE;
UPDATE "farm_task_animals" AS "l" SET "farm_id" = "t"."farm_id" FROM "farm_tasks" AS "t" WHERE "t"."id" = "l"."farm_task_id";
ALTER TABLE "farm_task_animals" ALTER COLUMN "farm_id" SET NOT NULL;
