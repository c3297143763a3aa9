-- Create "outside_animals" table
CREATE TABLE `outside_animals` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `name` text NOT NULL, `sex` text NOT NULL, `breed` text NULL, `registry` text NULL, `registration_number` text NULL, `batch` text NULL, `birth_date` text NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "outsideanimal_farm_id_name" to table: "outside_animals"
CREATE INDEX `outsideanimal_farm_id_name` ON `outside_animals` (`farm_id`, `name`);
