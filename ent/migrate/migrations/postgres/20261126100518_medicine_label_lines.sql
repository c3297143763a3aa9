-- Modify "medicine_versions" table
ALTER TABLE "medicine_versions" ALTER COLUMN "withdrawal_meat_days" DROP NOT NULL, ALTER COLUMN "withdrawal_milk_hours" DROP NOT NULL, ADD COLUMN "dry_cow" boolean NOT NULL DEFAULT false;
-- Modify "medicines" table
ALTER TABLE "medicines" ALTER COLUMN "withdrawal_meat_days" DROP NOT NULL, ALTER COLUMN "withdrawal_milk_hours" DROP NOT NULL, ADD COLUMN "dry_cow" boolean NOT NULL DEFAULT false;
