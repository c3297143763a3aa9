-- Modify "record_items" table
ALTER TABLE "record_items" ADD COLUMN "fact_value" character varying NULL;
-- Create index "recorditem_fact_kind_fact_date" to table: "record_items"
CREATE INDEX "recorditem_fact_kind_fact_date" ON "record_items" ("fact_kind", "fact_date");
-- Create index "recorditem_fact_value_fact_kind" to table: "record_items"
CREATE INDEX "recorditem_fact_value_fact_kind" ON "record_items" ("fact_value", "fact_kind");
-- Create "fact_animals" table
CREATE TABLE "fact_animals" ("id" uuid NOT NULL, "animal_id" uuid NOT NULL, "record_item_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "fact_animals_record_items_fact_animals" FOREIGN KEY ("record_item_id") REFERENCES "record_items" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "factanimal_animal_id" to table: "fact_animals"
CREATE INDEX "factanimal_animal_id" ON "fact_animals" ("animal_id");
-- Create index "factanimal_record_item_id_animal_id" to table: "fact_animals"
CREATE UNIQUE INDEX "factanimal_record_item_id_animal_id" ON "fact_animals" ("record_item_id", "animal_id");
-- Link the facts already stored to every animal they name: the subject, an exposure's or
-- birth's dam, a birth's sire and each of its offspring.
INSERT INTO "fact_animals" ("id", "animal_id", "record_item_id")
SELECT gen_random_uuid(), l."animal_id", l."item_id" FROM (
  SELECT "id" AS "item_id", "fact_subject" AS "animal_id" FROM "record_items" WHERE "fact_subject" IS NOT NULL
  UNION SELECT "id", "fact_dam" FROM "record_items" WHERE "fact_dam" IS NOT NULL
  UNION SELECT "id", ("metadata"->'birth_history'->>'sire_id')::uuid FROM "record_items"
    WHERE "fact_kind" = 'birth' AND "metadata"->'birth_history'->>'sire_id' IS NOT NULL
  UNION SELECT ri."id", o.v::uuid FROM "record_items" ri,
    jsonb_array_elements_text(CASE WHEN jsonb_typeof(ri."metadata"->'birth_history'->'offspring_ids') = 'array'
      THEN ri."metadata"->'birth_history'->'offspring_ids' ELSE '[]'::jsonb END) AS o(v)
    WHERE ri."fact_kind" = 'birth'
) l;
