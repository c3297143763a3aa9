-- Drop index "recorditem_fact_group_fact_kind_fact_date" from table: "record_items"
DROP INDEX "recorditem_fact_group_fact_kind_fact_date";
-- Create index "recorditem_group_facts" to table: "record_items"
CREATE INDEX "recorditem_group_facts" ON "record_items" ("fact_group", "fact_kind", "fact_date", "fact_until", "fact_subject", "record_id", "is_active", "id");
