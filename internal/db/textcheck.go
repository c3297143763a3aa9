package db

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"

	herdbook "github.com/herdbook/herdbook"
)

// TextFinding is a stored value that breaks the text rule (herdbook.TextProblem): written
// before the rule sat where bodies are decoded, by a path that missed it (issue 33.1: a
// medicine's label line took dose.unit = "ml\u0008"). Such a value makes every answer that
// carries it break the document's pattern, and an export carry the control character.
type TextFinding struct {
	// Table and Column name where the value is stored, ID the row (its primary key).
	Table  string `json:"table"`
	Column string `json:"column"`
	ID     string `json:"id"`
	// Path is the place inside a JSON column (species_withdrawals[0].dose.unit), or "".
	Path string `json:"path,omitempty"`
	// Problem is the rule's message, as a request carrying the value would get it.
	Problem string `json:"problem"`
}

// String is the finding in one line: table, row, column, path and problem.
func (f TextFinding) String() string {
	where := f.Table + " " + f.ID + " " + f.Column
	if f.Path != "" {
		where += " " + f.Path
	}
	return where + ": " + f.Problem
}

// textKind says how a column holds caller text.
type textKind uint8

const (
	lineText  textKind = iota + 1 // one line: names, tags, units, ids
	proseText                     // free text: tab and line breaks allowed
	jsonLine                      // a JSON document whose strings and keys are one line
	jsonProse                     // a JSON document whose string values are free text (keys one line)
)

// textColumns are the columns that hold text a caller wrote, by table, with the rule each
// follows: the same rule the decoders apply to the fields these columns store
// (text:"prose" in the REST bodies, the free-text fields of graph/textrule.go).
var textColumns = map[string]map[string]textKind{
	"animals":             {"tag": lineText, "name": lineText},
	"api_keys":            {"name": lineText},
	"audit_entries":       {"reason": proseText, "old_value": jsonProse, "new_value": jsonProse},
	"birth_events":        {"birth_date": lineText, "request_id": lineText},
	"birth_settings":      {"settings": jsonLine},
	"farms":               {"name": lineText, "species": lineText, "species_other": lineText},
	"farm_settings":       {"time_zone": lineText, "withdrawal_rules": lineText, "calving_ease_scale": jsonLine, "weaning_age_of_dam": jsonLine},
	"farm_tasks":          {"name": lineText},
	"files":               {"name": lineText, "mime_type": lineText},
	"follow_up_protocols": {"steps": jsonLine},
	"groups":              {"name": lineText},
	"holdings": {"scheme": lineText, "identifier": lineText, "name": lineText, "herd_mark": lineText, "keeper_name": lineText,
		"keeper_reference": lineText, "address": lineText, "postcode": lineText, "rule_set": lineText, "herd_type": lineText,
		"time_zone": lineText},
	"idempotent_requests": {"key": lineText},
	"medicines":           {"name": lineText, "active_substance": lineText, "species_withdrawals": jsonLine},
	"medicine_purchases": {"batch": lineText, "expiry_date": lineText, "quantity_unit": lineText, "supplier_name": lineText,
		"supplier_address": proseText, "purchased_on": lineText, "document_reference": lineText},
	"medicine_versions":    {"species_withdrawals": jsonLine},
	"messages":             {"body": proseText},
	"notice_submissions":   {"notice_key": lineText, "idempotency_key": lineText, "registry_reference": lineText, "cause": lineText},
	"oauth_clients":        {"client_id": lineText, "name": lineText, "redirect_uris": jsonLine},
	"registry_credentials": {"username": lineText},
	"outside_animals": {"name": lineText, "sex": lineText, "breed": lineText, "registry": lineText,
		"registration_number": lineText, "batch": lineText, "birth_date": lineText},
	"records": {"recorded_by_client_id": lineText, "voided_by_client_id": lineText, "void_reason": proseText,
		"type": lineText, "name": lineText, "description": proseText},
	"record_items": {"recorded_by_client_id": lineText, "voided_by_client_id": lineText, "void_reason": proseText,
		"name": lineText, "description": proseText, "metadata": jsonProse, "fact_kind": lineText, "fact_date": lineText,
		"fact_until": lineText, "fact_value": lineText},
	"task_updates":      {"request_id": lineText},
	"threads":           {"title": lineText},
	"users":             {"full_name": lineText, "phone_number_local": lineText, "email": lineText},
	"webhook_endpoints": {"url": lineText, "description": proseText, "event_types": jsonLine},
}

// serverText are the text columns the server writes itself (hashes, states, workers'
// names, error messages of outside systems, notification texts composed from checked
// values, generated documents): the text rule is for what callers write, so CheckText
// leaves them alone. TestTextColumnsClassified fails when a text column is in neither list,
// so that a new column is judged when it is added.
var serverText = map[string][]string{
	"access_tokens":         {"token_hash", "scopes"},
	"api_keys":              {"key_hash", "scopes"},
	"audit_entries":         {"client_id", "action", "entity"},
	"birth_previews":        {"birth_date", "evidence", "tasks"},
	"browser_sessions":      {"token_hash"},
	"device_authorizations": {"device_code_hash", "user_code_hash", "scopes", "status"},
	"farm_members":          {"role"},
	"farm_tasks":            {"status"},
	"files":                 {"storage_key"},
	"idempotent_requests":   {"fingerprint", "content_type"},
	"holdings":              {"country"},
	"notice_submissions":    {"kind", "state", "channel", "batch_id"},
	"registry_credentials":  {"key_id", "last_error"},
	"notifications":         {"type", "status", "recipient", "title", "body", "leased_by", "error_message"},
	"oauth_clients":         {"secret_hash", "scopes"},
	"oauth_codes":           {"code_hash", "redirect_uri", "scopes", "code_challenge"},
	"oauth_grants":          {"scopes", "source", "revoke_reason"},
	"record_items":          {"fact_tail"},
	"refresh_tokens":        {"token_hash", "scopes"},
	"scheduled_events":      {"kind", "subject", "due_on", "payload", "channel"},
	"task_updates":          {"body_hash"},
	"users":                 {"password_hash"},
	"webhook_attempts":      {"error", "response", "worker"},
	"webhook_deliveries":    {"status", "leased_by", "last_error"},
	"webhook_endpoints":     {"secret", "disabled_reason"},
	"webhook_events":        {"type"},
}

// maxTextFindingsPerColumn bounds what one column reports: a bulk import of bad names needs
// a few examples and a count, not a million lines.
const maxTextFindingsPerColumn = 100

// CheckText reads every stored value of every column that holds caller text (textColumns)
// and returns those that break the text rule the decoders now apply, in table, column and
// row order; at most maxTextFindingsPerColumn per column, and the number of values found in
// all. It changes nothing: `herdbook migrate` runs it after migrating and reports what it
// finds, and `herdbook admin text-check` lists it, so that an operator corrects each value
// through the API (which records the change in the audit trail) instead of a migration
// rewriting people's data unseen.
func (d *DB) CheckText(ctx context.Context) ([]TextFinding, int, error) {
	tables := make([]string, 0, len(textColumns))
	for t := range textColumns {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	var (
		out   []TextFinding
		total int
	)
	for _, table := range tables {
		cols := make([]string, 0, len(textColumns[table]))
		for c := range textColumns[table] {
			cols = append(cols, c)
		}
		sort.Strings(cols)
		for _, col := range cols {
			found, n, err := d.checkColumn(ctx, table, col, textColumns[table][col])
			if err != nil {
				return nil, 0, fmt.Errorf("check text of %s.%s: %w", table, col, err)
			}
			out = append(out, found...)
			total += n
		}
	}
	return out, total, nil
}

func (d *DB) checkColumn(ctx context.Context, table, col string, kind textKind) ([]TextFinding, int, error) {
	q := d.quote
	// PostgreSQL's json and jsonb come back as text through the cast; SQLite stores both as
	// text already. The id is read as text too: a uuid on PostgreSQL, a string on SQLite.
	value := q(col)
	id := q("id")
	if d.Dialect == dialect.Postgres {
		value += "::text"
		id += "::text"
	}
	rows, err := d.SQL.QueryContext(ctx, "SELECT "+id+", "+value+" FROM "+q(table)+" WHERE "+q(col)+" IS NOT NULL ORDER BY "+q("id"))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var (
		out   []TextFinding
		total int
	)
	for rows.Next() {
		var rowID, s string
		if err := rows.Scan(&rowID, &s); err != nil {
			return nil, 0, err
		}
		var problems []pathProblem
		switch kind {
		case lineText, proseText:
			if msg := herdbook.TextProblem(s, kind == proseText); msg != "" {
				problems = append(problems, pathProblem{"", msg})
			}
		case jsonLine, jsonProse:
			var v any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				// Not the text rule's business: the column's type guards its JSON.
				continue
			}
			walkJSONText(&problems, "", v, kind == jsonProse)
		}
		for _, p := range problems {
			total++
			if len(out) < maxTextFindingsPerColumn {
				out = append(out, TextFinding{Table: table, Column: col, ID: rowID, Path: p.path, Problem: p.msg})
			}
		}
	}
	return out, total, rows.Err()
}

type pathProblem struct{ path, msg string }

// walkJSONText applies the text rule to every string and key of a decoded JSON document,
// naming each problem by its path the way the decoders do (dose.unit, lines[0].label).
func walkJSONText(out *[]pathProblem, path string, v any, prose bool) {
	switch x := v.(type) {
	case string:
		if msg := herdbook.TextProblem(x, prose); msg != "" {
			*out = append(*out, pathProblem{path, msg})
		}
	case []any:
		for i, e := range x {
			walkJSONText(out, path+"["+strconv.Itoa(i)+"]", e, prose)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if msg := herdbook.TextProblem(k, false); msg != "" {
				*out = append(*out, pathProblem{path, "has a key that " + msg})
				continue
			}
			child := k
			if path != "" {
				child = path + "." + k
			}
			walkJSONText(out, child, x[k], prose)
		}
	}
}

// quote quotes an identifier for the dialect.
func (d *DB) quote(name string) string {
	if d.Dialect == dialect.Postgres {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
