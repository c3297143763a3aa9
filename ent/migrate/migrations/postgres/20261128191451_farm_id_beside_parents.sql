-- Every row a farm owns names its farm (docs/scaling.md): record items, their fact links,
-- thread messages and webhook attempts get the farm of the row they hang from, filled in
-- before the column becomes NOT NULL (record_items before fact_animals, which read it). A
-- row whose parent is missing gets no farm and fails the migration rather than being dropped.
-- Modify "record_items" table
ALTER TABLE "record_items" ADD COLUMN "farm_id" uuid NULL;
UPDATE "record_items" AS "i" SET "farm_id" = "r"."farm_id" FROM "records" AS "r" WHERE "r"."id" = "i"."record_id";
ALTER TABLE "record_items" ALTER COLUMN "farm_id" SET NOT NULL;
-- Modify "fact_animals" table
ALTER TABLE "fact_animals" ADD COLUMN "farm_id" uuid NULL;
UPDATE "fact_animals" AS "f" SET "farm_id" = "i"."farm_id" FROM "record_items" AS "i" WHERE "i"."id" = "f"."record_item_id";
ALTER TABLE "fact_animals" ALTER COLUMN "farm_id" SET NOT NULL;
-- Modify "messages" table
ALTER TABLE "messages" ADD COLUMN "farm_id" uuid NULL;
UPDATE "messages" AS "m" SET "farm_id" = "t"."farm_id" FROM "threads" AS "t" WHERE "t"."id" = "m"."thread_id";
ALTER TABLE "messages" ALTER COLUMN "farm_id" SET NOT NULL;
-- Modify "webhook_attempts" table
ALTER TABLE "webhook_attempts" ADD COLUMN "farm_id" uuid NULL;
UPDATE "webhook_attempts" AS "a" SET "farm_id" = "d"."farm_id" FROM "webhook_deliveries" AS "d" WHERE "d"."id" = "a"."delivery_id";
ALTER TABLE "webhook_attempts" ALTER COLUMN "farm_id" SET NOT NULL;
