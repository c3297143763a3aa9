-- Drop index "recorditem_fact_subject" from table: "record_items"
DROP INDEX "recorditem_fact_subject";
-- Create index "recorditem_fact_subject_fact_kind" to table: "record_items"
CREATE INDEX "recorditem_fact_subject_fact_kind" ON "record_items" ("fact_subject", "fact_kind");
