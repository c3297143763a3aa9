-- Drop index "recorditem_male_profile" from table: "record_items"
DROP INDEX "recorditem_male_profile";
-- Create index "recorditem_male_fact" to table: "record_items"
CREATE INDEX "recorditem_male_fact" ON "record_items" ("fact_subject", "fact_kind") INCLUDE ("record_id", "is_active") WHERE (((metadata -> 'birth_history'::text) ->> 'sex'::text) = 'male'::text);
