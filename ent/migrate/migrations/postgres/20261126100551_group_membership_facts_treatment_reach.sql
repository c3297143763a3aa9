-- Create "treatment_reaches" table
CREATE TABLE "treatment_reaches" ("id" uuid NOT NULL, "farm_id" uuid NOT NULL, "animal_id" uuid NOT NULL, "membership_item_id" uuid NULL, "record_item_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "treatment_reaches_record_items_reach" FOREIGN KEY ("record_item_id") REFERENCES "record_items" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "treatmentreach_farm_id_animal_id" to table: "treatment_reaches"
CREATE INDEX "treatmentreach_farm_id_animal_id" ON "treatment_reaches" ("farm_id", "animal_id");
-- Create index "treatmentreach_record_item_id_animal_id" to table: "treatment_reaches"
CREATE UNIQUE INDEX "treatmentreach_record_item_id_animal_id" ON "treatment_reaches" ("record_item_id", "animal_id");
-- Group membership has one truth, dated membership facts: every link of an active animal to
-- an active group of its farm becomes a membership fact from the day of this migration (the
-- link never said since when), unless a membership fact already places the animal in the
-- group today. One record ("Register: membership") with one item each, as the service writes.
CREATE TABLE "membership_link_moves" AS SELECT ga."group_id", ga."animal_id", g."farm_id", gen_random_uuid() AS "record_id", gen_random_uuid() AS "item_id", gen_random_uuid() AS "link_id", to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS "day" FROM "group_animals" ga JOIN "groups" g ON g."id" = ga."group_id" JOIN "animals" a ON a."id" = ga."animal_id" WHERE g."is_active" AND a."is_active" AND a."farm_id" = g."farm_id" AND NOT EXISTS (SELECT 1 FROM "record_items" ri JOIN "records" r ON r."id" = ri."record_id" WHERE ri."is_active" AND r."is_active" AND ri."fact_kind" = 'membership' AND ri."fact_subject" = ga."animal_id" AND ri."fact_group" = ga."group_id" AND ri."fact_date" <= to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AND (ri."fact_until" IS NULL OR ri."fact_until" >= to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')));
INSERT INTO "records" ("id", "created_at", "updated_at", "is_active", "type", "name", "description", "applied_at", "acknowledge_withdrawal", "change_seq", "farm_id") SELECT "record_id", now(), now(), true, 'GENETIC', 'Register: membership', 'Recorded by the migration from the group''s member list, which did not say since when.', ("day" || 'T00:00:00Z')::timestamptz, false, 0, "farm_id" FROM "membership_link_moves";
INSERT INTO "record_items" ("id", "created_at", "updated_at", "is_active", "name", "metadata", "fact_kind", "fact_subject", "fact_group", "fact_date", "record_id") SELECT "item_id", now(), now(), true, 'Register: membership', jsonb_build_object('birth_history', jsonb_build_object('kind', 'membership', 'animal_id', "animal_id"::text, 'group_id', "group_id"::text, 'start_date', "day")), 'membership', "animal_id", "group_id", "day", "record_id" FROM "membership_link_moves";
INSERT INTO "fact_animals" ("id", "animal_id", "record_item_id") SELECT "link_id", "animal_id", "item_id" FROM "membership_link_moves";
INSERT INTO "record_animals" ("record_id", "animal_id") SELECT "record_id", "animal_id" FROM "membership_link_moves";
INSERT INTO "record_groups" ("record_id", "group_id") SELECT "record_id", "group_id" FROM "membership_link_moves";
INSERT INTO "change_counters" ("id", "seq", "records") SELECT "farm_id", 0, count(*) FROM "records" WHERE "is_active" AND "farm_id" IN (SELECT "farm_id" FROM "membership_link_moves") GROUP BY "farm_id" ON CONFLICT ("id") DO UPDATE SET "records" = EXCLUDED."records";
DROP TABLE "membership_link_moves";
-- Drop "group_animals" table: nothing reads membership any other way now
DROP TABLE "group_animals";
