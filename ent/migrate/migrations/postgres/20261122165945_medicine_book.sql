-- Modify "records" table
ALTER TABLE "records" ADD COLUMN "acknowledge_withdrawal" boolean NOT NULL DEFAULT false;
-- Create "medicines" table
CREATE TABLE "medicines" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "farm_id" uuid NOT NULL, "name" character varying NOT NULL, "active_substance" character varying NULL, "version" bigint NOT NULL, "withdrawal_meat_days" bigint NOT NULL, "withdrawal_milk_hours" bigint NOT NULL, "species_withdrawals" jsonb NULL, PRIMARY KEY ("id"));
-- Create index "medicine_farm_id_is_active_created_at" to table: "medicines"
CREATE INDEX "medicine_farm_id_is_active_created_at" ON "medicines" ("farm_id", "is_active", "created_at");
-- Create "medicine_versions" table
CREATE TABLE "medicine_versions" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "medicine_id" uuid NOT NULL, "farm_id" uuid NOT NULL, "version" bigint NOT NULL, "withdrawal_meat_days" bigint NOT NULL, "withdrawal_milk_hours" bigint NOT NULL, "species_withdrawals" jsonb NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "medicineversion_farm_id" to table: "medicine_versions"
CREATE INDEX "medicineversion_farm_id" ON "medicine_versions" ("farm_id");
-- Create index "medicineversion_medicine_id_version" to table: "medicine_versions"
CREATE UNIQUE INDEX "medicineversion_medicine_id_version" ON "medicine_versions" ("medicine_id", "version");
