-- Modify "record_items" table
ALTER TABLE "record_items" ADD COLUMN "fact_tail" character varying NULL;
-- Create index "recorditem_fact_tail_fact_kind" to table: "record_items"
CREATE INDEX "recorditem_fact_tail_fact_kind" ON "record_items" ("fact_tail", "fact_kind");
-- Index the last 6 digits of the identifiers already stored (herdbook.identifierTail).
UPDATE "record_items" SET "fact_tail" = nullif(right(regexp_replace("fact_value", '[^0-9]', '', 'g'), 6), '')
  WHERE "fact_kind" = 'identifier' AND "fact_value" IS NOT NULL;
