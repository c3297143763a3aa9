-- Create "medicine_purchases" table
CREATE TABLE "medicine_purchases" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "medicine_id" uuid NOT NULL, "batch" character varying NOT NULL, "expiry_date" character varying NULL, "quantity" double precision NOT NULL, "quantity_unit" character varying NOT NULL, "supplier_name" character varying NOT NULL, "supplier_address" character varying NOT NULL, "purchased_on" character varying NOT NULL, "document_reference" character varying NULL, "file_id" uuid NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "medicinepurchase_farm_id_medicine_id_batch" to table: "medicine_purchases"
CREATE INDEX "medicinepurchase_farm_id_medicine_id_batch" ON "medicine_purchases" ("farm_id", "medicine_id", "batch");
-- Create index "medicinepurchase_farm_id_purchased_on" to table: "medicine_purchases"
CREATE INDEX "medicinepurchase_farm_id_purchased_on" ON "medicine_purchases" ("farm_id", "purchased_on");
