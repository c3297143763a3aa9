-- farm_id joins the six unique keys that lacked it, so that a Citus cluster can check each on
-- one shard (docs/scaling.md). Each key names rows of one farm already (an item, a medicine, a
-- scheduled event, a webhook event and endpoint are each one farm's; notice keys name the farm
-- or the animal), so the keys refuse the same rows as before.
-- Drop index "notification_scheduled_event_id_user_id_type" from table: "notifications"
DROP INDEX `notification_scheduled_event_id_user_id_type`;
-- Create index "notification_scheduled_event_id_user_id_type_farm_id" to table: "notifications"
CREATE UNIQUE INDEX `notification_scheduled_event_id_user_id_type_farm_id` ON `notifications` (`scheduled_event_id`, `user_id`, `type`, `farm_id`);
-- Drop index "webhookdelivery_event_id_endpoint_id" from table: "webhook_deliveries"
DROP INDEX `webhookdelivery_event_id_endpoint_id`;
-- Create index "webhookdelivery_event_id_endpoint_id_farm_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX `webhookdelivery_event_id_endpoint_id_farm_id` ON `webhook_deliveries` (`event_id`, `endpoint_id`, `farm_id`);
-- Drop index "medicineversion_medicine_id_version" from table: "medicine_versions"
DROP INDEX `medicineversion_medicine_id_version`;
-- Create index "medicineversion_medicine_id_version_farm_id" to table: "medicine_versions"
CREATE UNIQUE INDEX `medicineversion_medicine_id_version_farm_id` ON `medicine_versions` (`medicine_id`, `version`, `farm_id`);
-- Drop index "treatmentreach_record_item_id_animal_id" from table: "treatment_reaches"
DROP INDEX `treatmentreach_record_item_id_animal_id`;
-- Create index "treatmentreach_record_item_id_animal_id_farm_id" to table: "treatment_reaches"
CREATE UNIQUE INDEX `treatmentreach_record_item_id_animal_id_farm_id` ON `treatment_reaches` (`record_item_id`, `animal_id`, `farm_id`);
-- Drop index "noticesubmission_idempotency_key" from table: "notice_submissions"
DROP INDEX `noticesubmission_idempotency_key`;
-- Create index "noticesubmission_idempotency_key_farm_id" to table: "notice_submissions"
CREATE UNIQUE INDEX `noticesubmission_idempotency_key_farm_id` ON `notice_submissions` (`idempotency_key`, `farm_id`);
-- Drop index "factanimal_record_item_id_animal_id" from table: "fact_animals"
DROP INDEX `factanimal_record_item_id_animal_id`;
-- Create index "factanimal_record_item_id_animal_id_farm_id" to table: "fact_animals"
CREATE UNIQUE INDEX `factanimal_record_item_id_animal_id_farm_id` ON `fact_animals` (`record_item_id`, `animal_id`, `farm_id`);
