-- Drop index "recorditem_fact_group_fact_kind" from table: "record_items"
DROP INDEX `recorditem_fact_group_fact_kind`;
-- Create index "recorditem_fact_group_fact_kind_fact_date" to table: "record_items"
CREATE INDEX `recorditem_fact_group_fact_kind_fact_date` ON `record_items` (`fact_group`, `fact_kind`, `fact_date`);
