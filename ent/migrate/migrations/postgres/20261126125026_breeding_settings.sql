-- Modify "farm_settings" table
ALTER TABLE "farm_settings" ADD COLUMN "calving_ease_scale" jsonb NULL, ADD COLUMN "weaning_age_of_dam" jsonb NULL;
