-- Drop index "record_farm_id_is_active_created_at" from table: "records"
DROP INDEX `record_farm_id_is_active_created_at`;
-- Create index "record_farm_id_created_at_id_active" to table: "records"
CREATE INDEX `record_farm_id_created_at_id_active` ON `records` (`farm_id`, `created_at`, `id`) WHERE is_active;
