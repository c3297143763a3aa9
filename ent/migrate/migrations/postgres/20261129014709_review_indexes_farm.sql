-- Drop index "recorditem_group_facts" from table: "record_items"
DROP INDEX "recorditem_group_facts";
-- Drop index "recorditem_male_fact" from table: "record_items"
DROP INDEX "recorditem_male_fact";
-- Create index "recorditem_male_fact" to table: "record_items"
CREATE INDEX "recorditem_male_fact" ON "record_items" ("fact_subject", "fact_kind") INCLUDE ("record_id", "is_active", "farm_id") WHERE (((metadata -> 'birth_history'::text) ->> 'sex'::text) = 'male'::text);
-- Create index "recorditem_group_review" to table: "record_items"
CREATE INDEX "recorditem_group_review" ON "record_items" ("fact_group", "fact_kind", "fact_date", "fact_until", "fact_subject", "record_id", "is_active", "id", "farm_id");
