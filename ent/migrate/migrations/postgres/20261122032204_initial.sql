-- Create "oauth_clients" table
CREATE TABLE "oauth_clients" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "client_id" character varying NOT NULL, "name" character varying NOT NULL, "secret_hash" character varying NULL, "redirect_uris" jsonb NULL, "scopes" jsonb NOT NULL, "public" boolean NOT NULL DEFAULT false, "observer" boolean NOT NULL DEFAULT false, PRIMARY KEY ("id"));
-- Create index "oauth_clients_client_id_key" to table: "oauth_clients"
CREATE UNIQUE INDEX "oauth_clients_client_id_key" ON "oauth_clients" ("client_id");
-- Create "users" table
CREATE TABLE "users" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "full_name" character varying NULL, "phone_number_local" character varying NOT NULL, "password_hash" character varying NULL, PRIMARY KEY ("id"));
-- Create index "users_phone_number_local_key" to table: "users"
CREATE UNIQUE INDEX "users_phone_number_local_key" ON "users" ("phone_number_local");
-- Create "access_tokens" table
CREATE TABLE "access_tokens" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "token_hash" character varying NOT NULL, "scopes" jsonb NOT NULL, "expires_at" timestamptz NOT NULL, "revoked_at" timestamptz NULL, "user_id" uuid NOT NULL, "client_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "access_tokens_oauth_clients_tokens" FOREIGN KEY ("client_id") REFERENCES "oauth_clients" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "access_tokens_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "access_tokens_token_hash_key" to table: "access_tokens"
CREATE UNIQUE INDEX "access_tokens_token_hash_key" ON "access_tokens" ("token_hash");
-- Create index "accesstoken_expires_at" to table: "access_tokens"
CREATE INDEX "accesstoken_expires_at" ON "access_tokens" ("expires_at");
-- Create index "accesstoken_user_id" to table: "access_tokens"
CREATE INDEX "accesstoken_user_id" ON "access_tokens" ("user_id");
-- Create "farms" table
CREATE TABLE "farms" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "name" character varying NOT NULL, "allow_private_threads" boolean NOT NULL DEFAULT false, "current_month_start" timestamptz NULL, "species" character varying NOT NULL, "species_other" character varying NULL, PRIMARY KEY ("id"));
-- Create index "farm_created_at" to table: "farms"
CREATE INDEX "farm_created_at" ON "farms" ("created_at");
-- Create "animals" table
CREATE TABLE "animals" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "tag" character varying NOT NULL, "name" character varying NULL, "farm_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "animals_farms_animals" FOREIGN KEY ("farm_id") REFERENCES "farms" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "animal_farm_id_is_active_created_at" to table: "animals"
CREATE INDEX "animal_farm_id_is_active_created_at" ON "animals" ("farm_id", "is_active", "created_at");
-- Create "farm_members" table
CREATE TABLE "farm_members" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "role" character varying NOT NULL, "farm_id" uuid NOT NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "farm_members_farms_members" FOREIGN KEY ("farm_id") REFERENCES "farms" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "farm_members_users_memberships" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "farmmember_farm_id_user_id" to table: "farm_members"
CREATE UNIQUE INDEX "farmmember_farm_id_user_id" ON "farm_members" ("farm_id", "user_id");
-- Create index "farmmember_user_id_is_active" to table: "farm_members"
CREATE INDEX "farmmember_user_id_is_active" ON "farm_members" ("user_id", "is_active");
-- Create "files" table
CREATE TABLE "files" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "name" character varying NOT NULL, "mime_type" character varying NOT NULL, "size" bigint NOT NULL, "storage_key" character varying NOT NULL, "deleted_at" timestamptz NULL, "farm_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "files_farms_files" FOREIGN KEY ("farm_id") REFERENCES "farms" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "file_farm_id_is_active_created_at" to table: "files"
CREATE INDEX "file_farm_id_is_active_created_at" ON "files" ("farm_id", "is_active", "created_at");
-- Create "records" table
CREATE TABLE "records" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "type" character varying NOT NULL, "name" character varying NOT NULL, "description" character varying NULL, "applied_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "records_farms_records" FOREIGN KEY ("farm_id") REFERENCES "farms" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "record_farm_id_is_active_created_at" to table: "records"
CREATE INDEX "record_farm_id_is_active_created_at" ON "records" ("farm_id", "is_active", "created_at");
-- Create "file_records" table
CREATE TABLE "file_records" ("file_id" uuid NOT NULL, "record_id" uuid NOT NULL, PRIMARY KEY ("file_id", "record_id"), CONSTRAINT "file_records_file_id" FOREIGN KEY ("file_id") REFERENCES "files" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "file_records_record_id" FOREIGN KEY ("record_id") REFERENCES "records" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create "groups" table
CREATE TABLE "groups" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "name" character varying NOT NULL, "farm_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "groups_farms_groups" FOREIGN KEY ("farm_id") REFERENCES "farms" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "group_farm_id_is_active_created_at" to table: "groups"
CREATE INDEX "group_farm_id_is_active_created_at" ON "groups" ("farm_id", "is_active", "created_at");
-- Create "group_animals" table
CREATE TABLE "group_animals" ("group_id" uuid NOT NULL, "animal_id" uuid NOT NULL, PRIMARY KEY ("group_id", "animal_id"), CONSTRAINT "group_animals_animal_id" FOREIGN KEY ("animal_id") REFERENCES "animals" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "group_animals_group_id" FOREIGN KEY ("group_id") REFERENCES "groups" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create "threads" table
CREATE TABLE "threads" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "title" character varying NOT NULL, "is_private" boolean NOT NULL DEFAULT false, "created_by" uuid NULL, "farm_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "threads_farms_threads" FOREIGN KEY ("farm_id") REFERENCES "farms" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "thread_farm_id_is_active_created_at" to table: "threads"
CREATE INDEX "thread_farm_id_is_active_created_at" ON "threads" ("farm_id", "is_active", "created_at");
-- Create "messages" table
CREATE TABLE "messages" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "author_id" uuid NOT NULL, "body" character varying NOT NULL, "thread_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "messages_threads_messages" FOREIGN KEY ("thread_id") REFERENCES "threads" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "message_thread_id_created_at" to table: "messages"
CREATE INDEX "message_thread_id_created_at" ON "messages" ("thread_id", "created_at");
-- Create "record_animals" table
CREATE TABLE "record_animals" ("record_id" uuid NOT NULL, "animal_id" uuid NOT NULL, PRIMARY KEY ("record_id", "animal_id"), CONSTRAINT "record_animals_animal_id" FOREIGN KEY ("animal_id") REFERENCES "animals" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "record_animals_record_id" FOREIGN KEY ("record_id") REFERENCES "records" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create "record_groups" table
CREATE TABLE "record_groups" ("record_id" uuid NOT NULL, "group_id" uuid NOT NULL, PRIMARY KEY ("record_id", "group_id"), CONSTRAINT "record_groups_group_id" FOREIGN KEY ("group_id") REFERENCES "groups" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "record_groups_record_id" FOREIGN KEY ("record_id") REFERENCES "records" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create "record_items" table
CREATE TABLE "record_items" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "name" character varying NULL, "description" character varying NULL, "metadata" jsonb NULL, "record_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "record_items_records_items" FOREIGN KEY ("record_id") REFERENCES "records" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "recorditem_record_id_is_active" to table: "record_items"
CREATE INDEX "recorditem_record_id_is_active" ON "record_items" ("record_id", "is_active");
