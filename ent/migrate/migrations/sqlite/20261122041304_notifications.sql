-- Add column "email" to table: "users"
ALTER TABLE `users` ADD COLUMN `email` text NULL;
-- Create "notifications" table
CREATE TABLE `notifications` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `user_id` uuid NOT NULL, `scheduled_event_id` uuid NOT NULL, `type` text NOT NULL, `status` text NOT NULL DEFAULT ('PENDING'), `recipient` text NULL, `title` text NOT NULL, `body` text NOT NULL, `attempts` integer NOT NULL DEFAULT (0), `next_attempt_at` datetime NOT NULL, `lease_until` datetime NULL, `leased_by` text NULL, `sent_at` datetime NULL, `error_message` text NULL, `read_at` datetime NULL, PRIMARY KEY (`id`));
-- Create index "notification_scheduled_event_id_user_id_type" to table: "notifications"
CREATE UNIQUE INDEX `notification_scheduled_event_id_user_id_type` ON `notifications` (`scheduled_event_id`, `user_id`, `type`);
-- Create index "notification_status_next_attempt_at" to table: "notifications"
CREATE INDEX `notification_status_next_attempt_at` ON `notifications` (`status`, `next_attempt_at`);
-- Create index "notification_farm_id_user_id_created_at" to table: "notifications"
CREATE INDEX `notification_farm_id_user_id_created_at` ON `notifications` (`farm_id`, `user_id`, `created_at`);
-- Create index "notification_farm_id_status_created_at" to table: "notifications"
CREATE INDEX `notification_farm_id_status_created_at` ON `notifications` (`farm_id`, `status`, `created_at`);
-- Create "notification_preferences" table
CREATE TABLE `notification_preferences` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `user_id` uuid NOT NULL, `farm_id` uuid NOT NULL, `email` bool NOT NULL, `sms` bool NOT NULL, `in_app` bool NOT NULL, PRIMARY KEY (`id`));
-- Create index "notificationpreference_user_id_farm_id" to table: "notification_preferences"
CREATE UNIQUE INDEX `notificationpreference_user_id_farm_id` ON `notification_preferences` (`user_id`, `farm_id`);
-- Create "scheduled_events" table
CREATE TABLE `scheduled_events` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `kind` text NOT NULL, `subject` text NOT NULL, `due_on` text NOT NULL, `due_at` datetime NOT NULL, `payload` json NOT NULL, `recipient_id` uuid NULL, `channel` text NULL, `processed_at` datetime NULL, PRIMARY KEY (`id`));
-- Create index "scheduledevent_farm_id_kind_subject_due_on" to table: "scheduled_events"
CREATE UNIQUE INDEX `scheduledevent_farm_id_kind_subject_due_on` ON `scheduled_events` (`farm_id`, `kind`, `subject`, `due_on`);
-- Create index "scheduledevent_processed_at_due_at" to table: "scheduled_events"
CREATE INDEX `scheduledevent_processed_at_due_at` ON `scheduled_events` (`processed_at`, `due_at`);
