-- A record's links to its animals and groups name the record's farm (docs/scaling.md): the join
-- tables of Record.animals and Record.groups become the edge schemas RecordAnimal and
-- RecordGroup with a farm_id, filled from the record before it becomes NOT NULL (a link whose
-- record is missing fails the migration rather than being dropped), and their foreign keys
-- take the edge schemas' names, cascading as before.
-- Modify "record_animals" table
ALTER TABLE "record_animals" DROP CONSTRAINT "record_animals_animal_id", DROP CONSTRAINT "record_animals_record_id", ADD COLUMN "farm_id" uuid NULL, ADD CONSTRAINT "record_animals_animals_animal" FOREIGN KEY ("animal_id") REFERENCES "animals" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "record_animals_records_record" FOREIGN KEY ("record_id") REFERENCES "records" ("id") ON UPDATE NO ACTION ON DELETE CASCADE;
UPDATE "record_animals" AS "l" SET "farm_id" = "r"."farm_id" FROM "records" AS "r" WHERE "r"."id" = "l"."record_id";
ALTER TABLE "record_animals" ALTER COLUMN "farm_id" SET NOT NULL;
-- Modify "record_groups" table
ALTER TABLE "record_groups" DROP CONSTRAINT "record_groups_group_id", DROP CONSTRAINT "record_groups_record_id", ADD COLUMN "farm_id" uuid NULL, ADD CONSTRAINT "record_groups_groups_group" FOREIGN KEY ("group_id") REFERENCES "groups" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "record_groups_records_record" FOREIGN KEY ("record_id") REFERENCES "records" ("id") ON UPDATE NO ACTION ON DELETE CASCADE;
UPDATE "record_groups" AS "l" SET "farm_id" = "r"."farm_id" FROM "records" AS "r" WHERE "r"."id" = "l"."record_id";
ALTER TABLE "record_groups" ALTER COLUMN "farm_id" SET NOT NULL;
