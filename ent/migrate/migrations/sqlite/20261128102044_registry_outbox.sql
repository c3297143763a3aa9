-- Add column "batch_id" to table: "notice_submissions"
ALTER TABLE `notice_submissions` ADD COLUMN `batch_id` text NULL;
-- Create "registry_credentials" table
CREATE TABLE `registry_credentials` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `holding_id` uuid NOT NULL, `username` text NOT NULL, `sealed_password` blob NOT NULL, `key_id` text NOT NULL, `sending` bool NOT NULL DEFAULT (false), `last_error` text NULL, `updated_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "registry_credentials_holding_id_key" to table: "registry_credentials"
CREATE UNIQUE INDEX `registry_credentials_holding_id_key` ON `registry_credentials` (`holding_id`);
