-- A file's links to its records name the file's farm (docs/scaling.md): the join table of
-- File.records becomes the edge schema FileRecord with a farm_id, filled from the file before
-- it becomes NOT NULL (a link whose file is missing fails the migration rather than being
-- dropped), and its foreign keys take the edge schema's names, cascading as before.
-- Modify "file_records" table
ALTER TABLE "file_records" DROP CONSTRAINT "file_records_file_id", DROP CONSTRAINT "file_records_record_id", ADD COLUMN "farm_id" uuid NULL, ADD CONSTRAINT "file_records_files_file" FOREIGN KEY ("file_id") REFERENCES "files" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "file_records_records_record" FOREIGN KEY ("record_id") REFERENCES "records" ("id") ON UPDATE NO ACTION ON DELETE CASCADE;
UPDATE "file_records" AS "l" SET "farm_id" = "f"."farm_id" FROM "files" AS "f" WHERE "f"."id" = "l"."file_id";
ALTER TABLE "file_records" ALTER COLUMN "farm_id" SET NOT NULL;
-- An insert that names only the file and the record (the shared benchmark harness writes its
-- links so) gets the file's farm from this trigger, on plain PostgreSQL only: Herdbook's own
-- links always name the farm, and the Citus step of `herdbook migrate` drops the trigger,
-- since a shard's trigger cannot read the files of other shards (docs/scaling.md).
CREATE FUNCTION "file_records_farm_id_from_file"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."farm_id" IS NULL THEN
    SELECT "f"."farm_id" INTO NEW."farm_id" FROM "files" AS "f" WHERE "f"."id" = NEW."file_id";
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "file_records_farm_id" BEFORE INSERT ON "file_records" FOR EACH ROW EXECUTE FUNCTION "file_records_farm_id_from_file"();
