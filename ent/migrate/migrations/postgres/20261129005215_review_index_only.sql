-- Drop index "recorditem_fact_group_fact_kind_fact_date" from table: "record_items"
DROP INDEX "recorditem_fact_group_fact_kind_fact_date";
-- Create index "recorditem_fact_group_fact_kind_fact_date" to table: "record_items"
CREATE INDEX "recorditem_fact_group_fact_kind_fact_date" ON "record_items" ("fact_group", "fact_kind", "fact_date") INCLUDE ("fact_until", "fact_subject", "record_id", "is_active", "id");
-- Create index "recorditem_male_profile" to table: "record_items"
CREATE INDEX "recorditem_male_profile" ON "record_items" ("fact_subject") INCLUDE ("record_id", "is_active") WHERE (((fact_kind)::text = 'profile'::text) AND (((metadata -> 'birth_history'::text) ->> 'sex'::text) = 'male'::text));
