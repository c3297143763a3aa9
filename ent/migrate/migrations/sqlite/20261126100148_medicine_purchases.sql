-- Create "medicine_purchases" table
CREATE TABLE `medicine_purchases` (`id` uuid NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `farm_id` uuid NOT NULL, `medicine_id` uuid NOT NULL, `batch` text NOT NULL, `expiry_date` text NULL, `quantity` real NOT NULL, `quantity_unit` text NOT NULL, `supplier_name` text NOT NULL, `supplier_address` text NOT NULL, `purchased_on` text NOT NULL, `document_reference` text NULL, `file_id` uuid NULL, `created_by` uuid NULL, PRIMARY KEY (`id`));
-- Create index "medicinepurchase_farm_id_purchased_on" to table: "medicine_purchases"
CREATE INDEX `medicinepurchase_farm_id_purchased_on` ON `medicine_purchases` (`farm_id`, `purchased_on`);
-- Create index "medicinepurchase_farm_id_medicine_id_batch" to table: "medicine_purchases"
CREATE INDEX `medicinepurchase_farm_id_medicine_id_batch` ON `medicine_purchases` (`farm_id`, `medicine_id`, `batch`);
