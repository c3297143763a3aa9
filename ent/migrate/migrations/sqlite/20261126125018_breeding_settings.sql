-- Add column "calving_ease_scale" to table: "farm_settings"
ALTER TABLE `farm_settings` ADD COLUMN `calving_ease_scale` json NULL;
-- Add column "weaning_age_of_dam" to table: "farm_settings"
ALTER TABLE `farm_settings` ADD COLUMN `weaning_age_of_dam` json NULL;
