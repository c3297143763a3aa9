-- Drop index "recorditem_group_facts" from table: "record_items"
DROP INDEX `recorditem_group_facts`;
-- Create index "recorditem_group_review" to table: "record_items"
CREATE INDEX `recorditem_group_review` ON `record_items` (`fact_group`, `fact_kind`, `fact_date`, `fact_until`, `fact_subject`, `record_id`, `is_active`, `id`, `farm_id`);
