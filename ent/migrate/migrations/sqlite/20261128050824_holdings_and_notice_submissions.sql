-- Create "holdings" table
CREATE TABLE `holdings` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `scheme` text NOT NULL, `identifier` text NOT NULL, `name` text NULL, `herd_mark` text NULL, `keeper_name` text NOT NULL, `keeper_reference` text NULL, `address` text NULL, `postcode` text NULL, `country` text NOT NULL, `rule_set` text NOT NULL, `herd_type` text NOT NULL DEFAULT ('beef'), `time_zone` text NOT NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "holding_scheme_identifier" to table: "holdings"
CREATE INDEX `holding_scheme_identifier` ON `holdings` (`scheme`, `identifier`);
-- Create "holding_farms" table
CREATE TABLE `holding_farms` (`id` uuid NOT NULL, `farm_id` uuid NOT NULL, `created_at` datetime NOT NULL, `linked_by` uuid NULL, `holding_id` uuid NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `holding_farms_holdings_farms` FOREIGN KEY (`holding_id`) REFERENCES `holdings` (`id`) ON DELETE CASCADE);
-- Create index "holdingfarm_farm_id" to table: "holding_farms"
CREATE UNIQUE INDEX `holdingfarm_farm_id` ON `holding_farms` (`farm_id`);
-- Create index "holdingfarm_holding_id" to table: "holding_farms"
CREATE INDEX `holdingfarm_holding_id` ON `holding_farms` (`holding_id`);
-- Create "notice_submissions" table
CREATE TABLE `notice_submissions` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `holding_id` uuid NOT NULL, `farm_id` uuid NOT NULL, `notice_key` text NOT NULL, `kind` text NOT NULL, `animal_id` uuid NULL, `idempotency_key` text NOT NULL, `state` text NOT NULL, `channel` text NOT NULL, `registry_reference` text NULL, `cause` text NULL, `sent_at` datetime NULL, `answered_at` datetime NULL, `attempts` integer NOT NULL DEFAULT (0), `next_attempt_at` datetime NULL, `payload` blob NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "noticesubmission_idempotency_key" to table: "notice_submissions"
CREATE UNIQUE INDEX `noticesubmission_idempotency_key` ON `notice_submissions` (`idempotency_key`);
-- Create index "noticesubmission_holding_id_notice_key_created_at" to table: "notice_submissions"
CREATE INDEX `noticesubmission_holding_id_notice_key_created_at` ON `notice_submissions` (`holding_id`, `notice_key`, `created_at`);
-- Create index "noticesubmission_state_next_attempt_at" to table: "notice_submissions"
CREATE INDEX `noticesubmission_state_next_attempt_at` ON `notice_submissions` (`state`, `next_attempt_at`);
