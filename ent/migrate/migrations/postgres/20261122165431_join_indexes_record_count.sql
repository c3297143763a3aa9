-- Create index "accesstoken_client_id" to table: "access_tokens"
CREATE INDEX "accesstoken_client_id" ON "access_tokens" ("client_id");
-- Create index "browsersession_user_id" to table: "browser_sessions"
CREATE INDEX "browsersession_user_id" ON "browser_sessions" ("user_id");
-- Modify "change_counters" table
ALTER TABLE "change_counters" ADD COLUMN "records" bigint NOT NULL DEFAULT 0;
-- Create index "deviceauthorization_client_id" to table: "device_authorizations"
CREATE INDEX "deviceauthorization_client_id" ON "device_authorizations" ("client_id");
-- Create index "deviceauthorization_grant_id" to table: "device_authorizations"
CREATE INDEX "deviceauthorization_grant_id" ON "device_authorizations" ("grant_id");
-- Create index "deviceauthorization_user_id" to table: "device_authorizations"
CREATE INDEX "deviceauthorization_user_id" ON "device_authorizations" ("user_id");
-- Create index "farm_task_animals_animal_id_farm_task_id" to table: "farm_task_animals"
CREATE INDEX "farm_task_animals_animal_id_farm_task_id" ON "farm_task_animals" ("animal_id", "farm_task_id");
-- Create index "farmtask_birth_event_id" to table: "farm_tasks"
CREATE INDEX "farmtask_birth_event_id" ON "farm_tasks" ("birth_event_id");
-- Create index "file_records_record_id_file_id" to table: "file_records"
CREATE INDEX "file_records_record_id_file_id" ON "file_records" ("record_id", "file_id");
-- Create index "group_animals_animal_id_group_id" to table: "group_animals"
CREATE INDEX "group_animals_animal_id_group_id" ON "group_animals" ("animal_id", "group_id");
-- Create index "oauthcode_client_id" to table: "oauth_codes"
CREATE INDEX "oauthcode_client_id" ON "oauth_codes" ("client_id");
-- Create index "oauthcode_grant_id" to table: "oauth_codes"
CREATE INDEX "oauthcode_grant_id" ON "oauth_codes" ("grant_id");
-- Create index "oauthcode_user_id" to table: "oauth_codes"
CREATE INDEX "oauthcode_user_id" ON "oauth_codes" ("user_id");
-- Create index "oauthgrant_client_id" to table: "oauth_grants"
CREATE INDEX "oauthgrant_client_id" ON "oauth_grants" ("client_id");
-- Create index "record_animals_animal_id_record_id" to table: "record_animals"
CREATE INDEX "record_animals_animal_id_record_id" ON "record_animals" ("animal_id", "record_id");
-- Create index "record_groups_group_id_record_id" to table: "record_groups"
CREATE INDEX "record_groups_group_id_record_id" ON "record_groups" ("group_id", "record_id");
-- Create index "refreshtoken_client_id" to table: "refresh_tokens"
CREATE INDEX "refreshtoken_client_id" ON "refresh_tokens" ("client_id");
-- Create index "refreshtoken_user_id" to table: "refresh_tokens"
CREATE INDEX "refreshtoken_user_id" ON "refresh_tokens" ("user_id");
-- Backfill: every farm's active records, on its counter row (created for farms that have none)
INSERT INTO "change_counters" ("id", "seq", "records") SELECT "farm_id", 0, count(*) FROM "records" WHERE "is_active" GROUP BY "farm_id" ON CONFLICT ("id") DO UPDATE SET "records" = EXCLUDED."records";
