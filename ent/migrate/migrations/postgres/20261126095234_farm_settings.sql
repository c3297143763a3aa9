-- Create "farm_settings" table
CREATE TABLE "farm_settings" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "time_zone" character varying NULL, "withdrawal_rules" character varying NULL, "organic" boolean NOT NULL DEFAULT false, "allow_test_tags" boolean NOT NULL DEFAULT false, "minimum_breeding_age_female_days" bigint NULL, "minimum_breeding_age_male_days" bigint NULL, "minimum_calving_interval_days" bigint NULL, "updated_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "farmsettings_farm_id" to table: "farm_settings"
CREATE UNIQUE INDEX "farmsettings_farm_id" ON "farm_settings" ("farm_id");
