-- Create "idempotent_requests" table
CREATE TABLE `idempotent_requests` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `user_id` uuid NOT NULL, `key` text NOT NULL, `fingerprint` text NOT NULL, `status` integer NOT NULL DEFAULT (0), `content_type` text NOT NULL DEFAULT (''), `body` blob NULL, PRIMARY KEY (`id`));
-- Create index "idempotentrequest_user_id_key" to table: "idempotent_requests"
CREATE UNIQUE INDEX `idempotentrequest_user_id_key` ON `idempotent_requests` (`user_id`, `key`);
-- Create index "idempotentrequest_created_at" to table: "idempotent_requests"
CREATE INDEX `idempotentrequest_created_at` ON `idempotent_requests` (`created_at`);
