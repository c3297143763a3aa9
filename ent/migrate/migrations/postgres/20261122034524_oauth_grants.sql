-- Create "oauth_grants" table
CREATE TABLE "oauth_grants" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "scopes" jsonb NOT NULL, "source" character varying NOT NULL, "revoked_at" timestamptz NULL, "revoke_reason" character varying NULL, "client_id" uuid NOT NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "oauth_grants_oauth_clients_client" FOREIGN KEY ("client_id") REFERENCES "oauth_clients" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "oauth_grants_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "oauthgrant_user_id" to table: "oauth_grants"
CREATE INDEX "oauthgrant_user_id" ON "oauth_grants" ("user_id");
-- Modify "access_tokens" table
ALTER TABLE "access_tokens" ADD COLUMN "grant_id" uuid NULL, ADD CONSTRAINT "access_tokens_oauth_grants_grant" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants" ("id") ON UPDATE NO ACTION ON DELETE SET NULL;
-- Create index "accesstoken_grant_id" to table: "access_tokens"
CREATE INDEX "accesstoken_grant_id" ON "access_tokens" ("grant_id");
-- Create "api_keys" table
CREATE TABLE "api_keys" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "key_hash" character varying NOT NULL, "name" character varying NOT NULL, "scopes" jsonb NOT NULL, "expires_at" timestamptz NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "api_keys_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "api_keys_key_hash_key" to table: "api_keys"
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" ("key_hash");
-- Create index "apikey_user_id" to table: "api_keys"
CREATE INDEX "apikey_user_id" ON "api_keys" ("user_id");
-- Create "browser_sessions" table
CREATE TABLE "browser_sessions" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "token_hash" character varying NOT NULL, "expires_at" timestamptz NOT NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "browser_sessions_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "browser_sessions_token_hash_key" to table: "browser_sessions"
CREATE UNIQUE INDEX "browser_sessions_token_hash_key" ON "browser_sessions" ("token_hash");
-- Create index "browsersession_expires_at" to table: "browser_sessions"
CREATE INDEX "browsersession_expires_at" ON "browser_sessions" ("expires_at");
-- Create "device_authorizations" table
CREATE TABLE "device_authorizations" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "device_code_hash" character varying NOT NULL, "user_code_hash" character varying NOT NULL, "scopes" jsonb NOT NULL, "status" character varying NOT NULL DEFAULT 'pending', "expires_at" timestamptz NOT NULL, "interval" bigint NOT NULL, "next_poll_at" timestamptz NULL, "decided_at" timestamptz NULL, "consumed_at" timestamptz NULL, "client_id" uuid NOT NULL, "user_id" uuid NULL, "grant_id" uuid NULL, PRIMARY KEY ("id"), CONSTRAINT "device_authorizations_oauth_clients_client" FOREIGN KEY ("client_id") REFERENCES "oauth_clients" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "device_authorizations_oauth_grants_grant" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants" ("id") ON UPDATE NO ACTION ON DELETE SET NULL, CONSTRAINT "device_authorizations_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE SET NULL);
-- Create index "device_authorizations_device_code_hash_key" to table: "device_authorizations"
CREATE UNIQUE INDEX "device_authorizations_device_code_hash_key" ON "device_authorizations" ("device_code_hash");
-- Create index "device_authorizations_user_code_hash_key" to table: "device_authorizations"
CREATE UNIQUE INDEX "device_authorizations_user_code_hash_key" ON "device_authorizations" ("user_code_hash");
-- Create index "deviceauthorization_expires_at" to table: "device_authorizations"
CREATE INDEX "deviceauthorization_expires_at" ON "device_authorizations" ("expires_at");
-- Create "oauth_codes" table
CREATE TABLE "oauth_codes" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "code_hash" character varying NOT NULL, "redirect_uri" character varying NOT NULL, "scopes" jsonb NOT NULL, "code_challenge" character varying NULL, "expires_at" timestamptz NOT NULL, "used_at" timestamptz NULL, "client_id" uuid NOT NULL, "user_id" uuid NOT NULL, "grant_id" uuid NULL, PRIMARY KEY ("id"), CONSTRAINT "oauth_codes_oauth_clients_client" FOREIGN KEY ("client_id") REFERENCES "oauth_clients" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "oauth_codes_oauth_grants_grant" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants" ("id") ON UPDATE NO ACTION ON DELETE SET NULL, CONSTRAINT "oauth_codes_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "oauth_codes_code_hash_key" to table: "oauth_codes"
CREATE UNIQUE INDEX "oauth_codes_code_hash_key" ON "oauth_codes" ("code_hash");
-- Create index "oauthcode_expires_at" to table: "oauth_codes"
CREATE INDEX "oauthcode_expires_at" ON "oauth_codes" ("expires_at");
-- Create "refresh_tokens" table
CREATE TABLE "refresh_tokens" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "token_hash" character varying NOT NULL, "scopes" jsonb NOT NULL, "expires_at" timestamptz NOT NULL, "used_at" timestamptz NULL, "revoked_at" timestamptz NULL, "grant_id" uuid NOT NULL, "client_id" uuid NOT NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "refresh_tokens_oauth_clients_client" FOREIGN KEY ("client_id") REFERENCES "oauth_clients" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "refresh_tokens_oauth_grants_grant" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "refresh_tokens_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- Create index "refresh_tokens_token_hash_key" to table: "refresh_tokens"
CREATE UNIQUE INDEX "refresh_tokens_token_hash_key" ON "refresh_tokens" ("token_hash");
-- Create index "refreshtoken_expires_at" to table: "refresh_tokens"
CREATE INDEX "refreshtoken_expires_at" ON "refresh_tokens" ("expires_at");
-- Create index "refreshtoken_grant_id" to table: "refresh_tokens"
CREATE INDEX "refreshtoken_grant_id" ON "refresh_tokens" ("grant_id");
