// Package citus lays Herdbook's schema out on a Citus cluster (issue 30, docs/scaling.md):
// every farm-scoped table distributed by its farm and colocated with farms, what all farms
// share as reference tables, and the rest left on the coordinator. `herdbook migrate` runs it
// after the versioned migrations when the database has the citus extension; plain PostgreSQL
// and SQLite never see it, since the keys it changes ((id, farm_id) primary keys, foreign keys
// with farm_id) are what only a cluster needs.
//
// The layout is idempotent: a table Citus already knows is left as it is, so a second run
// changes nothing and a run after a later migration lays out only the farm tables that
// migration created (once they are listed in FarmTables).
package citus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// FarmTables lists every farm-scoped table: each is distributed by its farm (the column
// DistributionColumn names) and colocated with farms, so that one farm's rows of all of them
// live on one shard. A migration that creates a farm-scoped table adds it here.
var FarmTables = []string{
	"farms", "change_counters",
	"animals", "audit_entries", "birth_events", "birth_previews", "birth_settings", "farm_members",
	"farm_settings", "farm_tasks", "files", "follow_up_protocols", "groups", "holding_farms", "medicine_purchases",
	"medicine_versions", "medicines", "notice_submissions", "notification_preferences", "notifications", "outside_animals",
	"records", "scheduled_events", "task_updates", "threads", "treatment_reaches", "webhook_deliveries", "webhook_endpoints",
	"webhook_events", "record_items", "fact_animals", "messages", "webhook_attempts",
	"record_animals", "record_groups", "file_records", "farm_task_animals",
}

// ReferenceTables lists what all farms share and farm tables reference: copied to every node
// (docs/scaling.md says why each).
var ReferenceTables = []string{"users", "holdings", "registry_credentials"}

// Anchor is the table every farm table is colocated with.
const Anchor = "farms"

// DistributionColumn is the column a farm table is distributed by: its farm.
func DistributionColumn(table string) string {
	if table == "farms" || table == "change_counters" {
		return "id" // their id is the farm's id
	}
	return "farm_id"
}

// Queryer is what the layout reads and writes through: a *sql.Conn or a *sql.Tx.
type Queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Present reports whether the database has the citus extension.
func Present(ctx context.Context, q Queryer) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM pg_extension WHERE extname = 'citus'").Scan(&n)
	return n > 0, err
}

// SequentialDDL makes the statements of the transaction tx use one connection a node: a
// table with foreign keys to reference tables otherwise refuses a second distributed DDL or
// distribution in one transaction ("cannot modify table ... because there was a parallel
// operation on a distributed table"). The migrations run with it on a cluster.
func SequentialDDL(ctx context.Context, tx Queryer) error {
	_, err := tx.ExecContext(ctx, "SET LOCAL citus.multi_shard_modify_mode TO 'sequential'")
	return err
}

// Layout lays the schema of the connection's search path out on the cluster, in one
// transaction: the reference tables, then every farm table not yet distributed, with its
// primary key made to carry its farm ((id, farm_id), or (farm_id, left, right) for a join
// table) and its foreign keys to other farm tables made again with farm_id on both sides. It
// returns how many tables it laid out: 0 when every table was already.
func Layout(ctx context.Context, conn *sql.Conn) (int, error) {
	// Citus's DDL locks its metadata, which DDL in other schemas of the database (another
	// test's scratch schema being laid out or dropped) locks too, in an order of its own:
	// PostgreSQL then breaks a deadlock by failing one transaction, which is whole and can
	// simply run again.
	for attempt := 1; ; attempt++ {
		n, err := layout(ctx, conn)
		var pgErr *pgconn.PgError
		if attempt < 5 && errors.As(err, &pgErr) && pgErr.Code == "40P01" {
			continue
		}
		return n, err
	}
}

func layout(ctx context.Context, conn *sql.Conn) (int, error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback() //nolint:errcheck
	if err := SequentialDDL(ctx, tx); err != nil {
		return 0, err
	}
	known, err := citusTables(ctx, tx)
	if err != nil {
		return 0, err
	}
	var pending []string
	for _, t := range FarmTables {
		switch known[t] {
		case "distributed":
		case "", "local":
			// A table Citus does not know, or made a Citus local table because it references
			// a reference table (a farm table a later migration created): distributed below.
			pending = append(pending, t)
		default:
			return 0, fmt.Errorf("citus: %s is a %s table, not distributed", t, known[t])
		}
	}
	if len(pending) == 0 {
		n, err := makeReference(ctx, tx, known)
		if err != nil {
			return 0, err
		}
		return n, tx.Commit()
	}
	fks, err := foreignKeys(ctx, tx)
	if err != nil {
		return 0, err
	}
	var remake []foreignKey
	for _, fk := range fks {
		from, to := slices.Contains(FarmTables, fk.table), slices.Contains(FarmTables, fk.refTable)
		if !to || !(slices.Contains(pending, fk.table) || slices.Contains(pending, fk.refTable)) {
			continue
		}
		if !from {
			return 0, fmt.Errorf("citus: %s.%s references the farm table %s from a table that is not distributed; Citus refuses it",
				fk.table, fk.name, fk.refTable)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s", ident(fk.table), ident(fk.name))); err != nil {
			return 0, fmt.Errorf("citus: drop %s.%s: %w", fk.table, fk.name, err)
		}
		remake = append(remake, fk)
	}
	// A shard's trigger cannot read other shards: the trigger that fills file_records' farm from
	// the file on plain PostgreSQL (migration file_record_farm) has no place on the cluster.
	for _, q := range []string{
		"DROP TRIGGER IF EXISTS file_records_farm_id ON file_records",
		"DROP FUNCTION IF EXISTS file_records_farm_id_from_file()",
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("citus: %s: %w", q, err)
		}
	}
	for _, t := range pending {
		if err := keyWithFarm(ctx, tx, t); err != nil {
			return 0, err
		}
	}
	n, err := makeReference(ctx, tx, known)
	if err != nil {
		return 0, err
	}
	for _, t := range pending {
		var err error
		if t == Anchor {
			_, err = tx.ExecContext(ctx, "SELECT create_distributed_table($1, $2)", t, DistributionColumn(t))
		} else {
			_, err = tx.ExecContext(ctx, "SELECT create_distributed_table($1, $2, colocate_with => $3)", t, DistributionColumn(t), Anchor)
		}
		if err != nil {
			return 0, fmt.Errorf("citus: distribute %s: %w", t, err)
		}
		n++
	}
	for _, fk := range remake {
		if _, err := tx.ExecContext(ctx, fk.withFarm()); err != nil {
			return 0, fmt.Errorf("citus: foreign key %s.%s with farm_id: %w", fk.table, fk.name, err)
		}
	}
	return n, tx.Commit()
}

// makeReference makes the reference tables Citus does not know yet, and returns how many.
func makeReference(ctx context.Context, tx *sql.Tx, known map[string]string) (int, error) {
	n := 0
	for _, t := range ReferenceTables {
		switch known[t] {
		case "reference":
			continue
		case "":
		default:
			return 0, fmt.Errorf("citus: %s is a %s table, not a reference table", t, known[t])
		}
		if _, err := tx.ExecContext(ctx, "SELECT create_reference_table($1)", t); err != nil {
			return 0, fmt.Errorf("citus: reference table %s: %w", t, err)
		}
		n++
	}
	return n, nil
}

// citusTables maps each table of the search path Citus knows to its kind: distributed,
// reference or local.
func citusTables(ctx context.Context, q Queryer) (map[string]string, error) {
	// pg_dist_partition is in pg_catalog, which every search path has (the citus_tables view
	// is in public, which a scratch schema's search path may leave out).
	rows, err := q.QueryContext(ctx, `SELECT c.relname, CASE WHEN p.partmethod = 'h' THEN 'distributed'
		WHEN p.repmodel = 't' THEN 'reference' ELSE 'local' END
		FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
		WHERE c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, fmt.Errorf("citus: list tables: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var name, kind string
		if err := rows.Scan(&name, &kind); err != nil {
			return nil, err
		}
		m[name] = kind
	}
	return m, rows.Err()
}

// keyWithFarm makes table's primary key carry its distribution column, as Citus requires: an
// entity's (id) becomes (id, farm_id), the id first so that a lookup by id keeps its index; a
// join table's (left, right) becomes (farm_id, left, right).
func keyWithFarm(ctx context.Context, tx Queryer, table string) error {
	var name, cols string
	err := tx.QueryRowContext(ctx, `SELECT c.conname, array_to_string(ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i), ',')
		FROM pg_constraint c WHERE c.contype = 'p' AND c.conrelid = to_regclass($1)`, table).Scan(&name, &cols)
	if err != nil {
		return fmt.Errorf("citus: primary key of %s: %w", table, err)
	}
	dist := DistributionColumn(table)
	key := strings.Split(cols, ",")
	if slices.Contains(key, dist) {
		return nil
	}
	if len(key) == 1 && key[0] == "id" {
		key = append(key, dist)
	} else {
		key = append([]string{dist}, key...)
	}
	// Two statements: Citus refuses ADD CONSTRAINT beside other subcommands on a table it knows.
	for _, q := range []string{
		fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s", ident(table), ident(name)),
		fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (%s)", ident(table), idents(key)),
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("citus: primary key of %s: %w", table, err)
		}
	}
	return nil
}

// foreignKey is a foreign key of the search path's schema, as the catalog describes it.
type foreignKey struct {
	name, table, refTable string
	cols, refCols         []string
	onDelete, onUpdate    byte // pg_constraint's confdeltype and confupdtype
}

func foreignKeys(ctx context.Context, q Queryer) ([]foreignKey, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.conname, cl.relname, rc.relname, c.confdeltype, c.confupdtype,
		array_to_string(ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
			JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i), ','),
		array_to_string(ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
			JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i), ',')
		FROM pg_constraint c JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class rc ON rc.oid = c.confrelid
		WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace ORDER BY cl.relname, c.conname`)
	if err != nil {
		return nil, fmt.Errorf("citus: list foreign keys: %w", err)
	}
	defer rows.Close()
	var fks []foreignKey
	for rows.Next() {
		var fk foreignKey
		var del, upd, cols, refCols string
		if err := rows.Scan(&fk.name, &fk.table, &fk.refTable, &del, &upd, &cols, &refCols); err != nil {
			return nil, err
		}
		fk.onDelete, fk.onUpdate = del[0], upd[0]
		fk.cols, fk.refCols = strings.Split(cols, ","), strings.Split(refCols, ",")
		fks = append(fks, fk)
	}
	return fks, rows.Err()
}

// withFarm is the statement that makes fk again between two distributed tables: with both
// tables' distribution columns, unless it is already between them (a farm_id referencing
// farms). Its actions are kept; SET NULL and SET DEFAULT name the key's own columns, so that
// they never touch the row's farm.
func (fk foreignKey) withFarm() string {
	cols, refCols := fk.cols, fk.refCols
	from, to := DistributionColumn(fk.table), DistributionColumn(fk.refTable)
	if i := slices.Index(cols, from); i < 0 || refCols[i] != to {
		cols, refCols = append(slices.Clip(cols), from), append(slices.Clip(refCols), to)
	}
	return fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s) ON DELETE %s ON UPDATE %s",
		ident(fk.table), ident(fk.name), idents(cols), ident(fk.refTable), idents(refCols),
		action(fk.onDelete, fk.cols), action(fk.onUpdate, nil))
}

// action is a referential action's SQL; cols, when given, restrict SET NULL and SET DEFAULT to
// those columns (PostgreSQL 15 allows it for ON DELETE only).
func action(code byte, cols []string) string {
	list := ""
	if len(cols) > 0 {
		list = " (" + idents(cols) + ")"
	}
	switch code {
	case 'r':
		return "RESTRICT"
	case 'c':
		return "CASCADE"
	case 'n':
		return "SET NULL" + list
	case 'd':
		return "SET DEFAULT" + list
	}
	return "NO ACTION"
}

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func idents(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = ident(s)
	}
	return strings.Join(q, ", ")
}
