-- Create index "animal_farm_id_tag_id" to table: "animals"
CREATE INDEX `animal_farm_id_tag_id` ON `animals` (`farm_id`, `tag`, `id`);
