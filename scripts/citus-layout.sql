-- The Citus layout of Herdbook's schema, as a prototype run by hand (issue 30.2, docs/scaling.md):
-- it takes the schema `herdbook migrate` makes today and lays it out on a Citus cluster, every
-- farm-scoped table distributed by farm and colocated with farms, what all farms share as
-- reference tables, sign-in's tables on the coordinator. It proves the plan in docs/scaling.md
-- on Citus 13.2 before the migrations and `herdbook migrate` carried it (they do now:
-- internal/db/citus lays the schema out after the migrations); run it on a scratch
-- schema of the test cluster, never on a database that serves:
--
--   scripts/citus.sh start
--   url='postgres://127.0.0.1:9700/test?sslmode=disable'
--   psql "$url" -c 'CREATE SCHEMA layout'
--   HERDBOOK_DATABASE_URL="$url&search_path=layout" herdbook migrate
--   psql "$url&options=-csearch_path%3Dlayout" -f scripts/citus-layout.sql
--
-- It ends with one line per kind of table. Rows present before it keep their farm.
\set ON_ERROR_STOP 1
SET citus.shard_count = 4;
-- Distributing tables that have foreign keys to reference tables in one session needs one
-- connection a node (without it: "cannot modify table users because there was a parallel
-- operation on a distributed table").
SET citus.multi_shard_modify_mode = sequential;
BEGIN;
-- 1. Every farm-scoped table has its farm_id from the migrations (farm_id_beside_parents,
-- farm_task_animal_farm, record_link_farm, file_record_farm). The trigger that fills
-- file_records' farm from its file for an insert that leaves it out (plain PostgreSQL's, for
-- the shared benchmark harness) cannot run on a shard, so it goes.
DROP TRIGGER IF EXISTS file_records_farm_id ON file_records;
DROP FUNCTION IF EXISTS file_records_farm_id_from_file();

-- 2. Every foreign key between farm-scoped tables is dropped, to be made again with farm_id.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.conrelid::regclass AS t, c.conname FROM pg_constraint c
    WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
      AND c.confrelid::regclass::text IN ('farms','records','record_items','animals','groups','files','farm_tasks','birth_events','threads','webhook_deliveries','webhook_endpoints','webhook_events')
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.t, r.conname);
  END LOOP;
END $$;

-- 3. Primary keys with farm_id: (id, farm_id) for entity tables, (farm_id, left, right) for join
-- tables. The unique keys have it since the migration farm_id_in_unique_keys.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['animals','audit_entries','birth_events','birth_previews','birth_settings','farm_members',
    'farm_settings','farm_tasks','files','follow_up_protocols','groups','holding_farms','medicine_purchases',
    'medicine_versions','medicines','notice_submissions','notification_preferences','notifications','outside_animals',
    'records','scheduled_events','task_updates','threads','treatment_reaches','webhook_deliveries','webhook_endpoints',
    'webhook_events','record_items','fact_animals','messages','webhook_attempts']
  LOOP
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t, t || '_pkey');
    EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id, farm_id)', t);
  END LOOP;
END $$;
ALTER TABLE record_animals DROP CONSTRAINT record_animals_pkey, ADD PRIMARY KEY (farm_id, record_id, animal_id);
ALTER TABLE record_groups DROP CONSTRAINT record_groups_pkey, ADD PRIMARY KEY (farm_id, record_id, group_id);
ALTER TABLE file_records DROP CONSTRAINT file_records_pkey, ADD PRIMARY KEY (farm_id, file_id, record_id);
ALTER TABLE farm_task_animals DROP CONSTRAINT farm_task_animals_pkey, ADD PRIMARY KEY (farm_id, farm_task_id, animal_id);

COMMIT;

-- 4. What all farms share: reference tables. What only sign-in reads stays on the coordinator.
SELECT create_reference_table('users');
SELECT create_reference_table('holdings');
SELECT create_reference_table('registry_credentials');

-- 5. Farms by id, every farm-scoped table by farm_id, all colocated.
SELECT create_distributed_table('farms', 'id');
SELECT create_distributed_table('change_counters', 'id', colocate_with => 'farms');
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['animals','audit_entries','birth_events','birth_previews','birth_settings','farm_members',
    'farm_settings','farm_tasks','files','follow_up_protocols','groups','holding_farms','medicine_purchases',
    'medicine_versions','medicines','notice_submissions','notification_preferences','notifications','outside_animals',
    'records','scheduled_events','task_updates','threads','treatment_reaches','webhook_deliveries','webhook_endpoints',
    'webhook_events','record_items','fact_animals','messages','webhook_attempts',
    'record_animals','record_groups','file_records','farm_task_animals']
  LOOP
    PERFORM create_distributed_table(t, 'farm_id', colocate_with => 'farms');
  END LOOP;
END $$;

-- 6. The foreign keys again, each with farm_id.
ALTER TABLE animals ADD CONSTRAINT animals_farms_animals FOREIGN KEY (farm_id) REFERENCES farms (id);
ALTER TABLE farm_members ADD CONSTRAINT farm_members_farms_members FOREIGN KEY (farm_id) REFERENCES farms (id);
ALTER TABLE files ADD CONSTRAINT files_farms_files FOREIGN KEY (farm_id) REFERENCES farms (id);
ALTER TABLE groups ADD CONSTRAINT groups_farms_groups FOREIGN KEY (farm_id) REFERENCES farms (id);
ALTER TABLE records ADD CONSTRAINT records_farms_records FOREIGN KEY (farm_id) REFERENCES farms (id);
ALTER TABLE threads ADD CONSTRAINT threads_farms_threads FOREIGN KEY (farm_id) REFERENCES farms (id);
ALTER TABLE fact_animals ADD CONSTRAINT fact_animals_record_items_fact_animals FOREIGN KEY (record_item_id, farm_id) REFERENCES record_items (id, farm_id);
ALTER TABLE farm_task_animals ADD CONSTRAINT farm_task_animals_animals_animal FOREIGN KEY (animal_id, farm_id) REFERENCES animals (id, farm_id) ON DELETE CASCADE;
ALTER TABLE farm_task_animals ADD CONSTRAINT farm_task_animals_farm_tasks_farm_task FOREIGN KEY (farm_task_id, farm_id) REFERENCES farm_tasks (id, farm_id) ON DELETE CASCADE;
ALTER TABLE farm_tasks ADD CONSTRAINT farm_tasks_birth_events_tasks FOREIGN KEY (birth_event_id, farm_id) REFERENCES birth_events (id, farm_id);
ALTER TABLE file_records ADD CONSTRAINT file_records_files_file FOREIGN KEY (file_id, farm_id) REFERENCES files (id, farm_id) ON DELETE CASCADE;
ALTER TABLE file_records ADD CONSTRAINT file_records_records_record FOREIGN KEY (record_id, farm_id) REFERENCES records (id, farm_id) ON DELETE CASCADE;
ALTER TABLE messages ADD CONSTRAINT messages_threads_messages FOREIGN KEY (thread_id, farm_id) REFERENCES threads (id, farm_id);
ALTER TABLE record_animals ADD CONSTRAINT record_animals_animals_animal FOREIGN KEY (animal_id, farm_id) REFERENCES animals (id, farm_id) ON DELETE CASCADE;
ALTER TABLE record_animals ADD CONSTRAINT record_animals_records_record FOREIGN KEY (record_id, farm_id) REFERENCES records (id, farm_id) ON DELETE CASCADE;
ALTER TABLE record_groups ADD CONSTRAINT record_groups_groups_group FOREIGN KEY (group_id, farm_id) REFERENCES groups (id, farm_id) ON DELETE CASCADE;
ALTER TABLE record_groups ADD CONSTRAINT record_groups_records_record FOREIGN KEY (record_id, farm_id) REFERENCES records (id, farm_id) ON DELETE CASCADE;
ALTER TABLE record_items ADD CONSTRAINT record_items_records_items FOREIGN KEY (record_id, farm_id) REFERENCES records (id, farm_id);
ALTER TABLE treatment_reaches ADD CONSTRAINT treatment_reaches_record_items_reach FOREIGN KEY (record_item_id, farm_id) REFERENCES record_items (id, farm_id);
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_webhook_deliveries_attempt_log FOREIGN KEY (delivery_id, farm_id) REFERENCES webhook_deliveries (id, farm_id) ON DELETE CASCADE;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_endpoints_deliveries FOREIGN KEY (endpoint_id, farm_id) REFERENCES webhook_endpoints (id, farm_id) ON DELETE CASCADE;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_events_deliveries FOREIGN KEY (event_id, farm_id) REFERENCES webhook_events (id, farm_id) ON DELETE CASCADE;

-- What became of every table: one line per kind (distributed, reference, local: a Citus local
-- table on the coordinator, postgres local: a table Citus does not know).
SELECT coalesce(p.citus_table_type, 'postgres local') AS kind, count(*) AS tables,
  count(DISTINCT p.colocation_id) AS colocation_groups, string_agg(c.relname, ' ' ORDER BY c.relname) AS names
FROM pg_class c LEFT JOIN public.citus_tables p ON p.table_name = c.oid
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' GROUP BY 1 ORDER BY 1;
