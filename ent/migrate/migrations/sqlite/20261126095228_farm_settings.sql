-- Create "farm_settings" table
CREATE TABLE `farm_settings` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `time_zone` text NULL, `withdrawal_rules` text NULL, `organic` bool NOT NULL DEFAULT (false), `allow_test_tags` bool NOT NULL DEFAULT (false), `minimum_breeding_age_female_days` integer NULL, `minimum_breeding_age_male_days` integer NULL, `minimum_calving_interval_days` integer NULL, `updated_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "farmsettings_farm_id" to table: "farm_settings"
CREATE UNIQUE INDEX `farmsettings_farm_id` ON `farm_settings` (`farm_id`);
