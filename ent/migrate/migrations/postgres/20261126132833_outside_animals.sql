-- Create "outside_animals" table
CREATE TABLE "outside_animals" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "farm_id" uuid NOT NULL, "name" character varying NOT NULL, "sex" character varying NOT NULL, "breed" character varying NULL, "registry" character varying NULL, "registration_number" character varying NULL, "batch" character varying NULL, "birth_date" character varying NULL, "created_by" uuid NULL, PRIMARY KEY ("id"));
-- Create index "outsideanimal_farm_id_name" to table: "outside_animals"
CREATE INDEX "outsideanimal_farm_id_name" ON "outside_animals" ("farm_id", "name");
