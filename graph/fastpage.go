package graph

import (
	"bytes"
	"context"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/timegql"
	"github.com/herdbook/herdbook/ent/schema/uuidgql"
)

// A records page (Farm.records, the web app's and the benchmark's hot path) is written here
// in one pass instead of field by field through the executor. Profiles of the harness's
// page of 50 records with items and files (docs/performance.md) put two thirds of the
// server's CPU in gqlgen's per-field machinery for the connection's ~1,300 fields: a field
// context, a context value, closures and a middleware call per field, a map per object, a
// goroutine per list element and per record (items and files are methods taking a
// context), and the garbage of all of it. The connection is still resolved by the
// resolver (RecordConnection, with its items and files loaded in the same statements), the
// operation is still validated, measured and held to every limit before it runs, and the
// answer is still charged to its byte ceiling before it is built, so only the writing
// changes: the JSON written is byte for byte the executor's (TestFastRecordsPageMatches),
// because every value goes through the same marshalers the generated code uses, in the
// order and with the aliases graphql.CollectFields gives. A selection this file does not
// know (a field with arguments or a resolver of its own, @defer) or a value the executor
// would answer with an error (a null where the schema says non-null) falls back to the
// executor for the whole connection.

// slowRecordsPage turns the one-pass writers off (records here, animals in fastanimals.go);
// tests that compare them with the executor set it.
var slowRecordsPage atomic.Bool

// recordsPage writes conn, the value of the Farm.records field of fc, as the executor
// would. ok is false when the selection or a value needs the executor; stopped is true when
// the answer's byte ceiling was passed while writing (then nothing is returned).
func recordsPage(ctx context.Context, fc *graphql.FieldContext, conn *ent.RecordConnection, b *answerBudget) (out []byte, ok, stopped bool) {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || conn == nil {
		return nil, false, false
	}
	w := pageWriter{ctx: ctx, oc: oc, b: b, buf: bytes.NewBuffer(make([]byte, 0, 16<<10))}
	w.connection(fc.Field.Selections, conn)
	switch {
	case w.stopped:
		return nil, false, true
	case w.failed:
		return nil, false, false
	}
	return w.buf.Bytes(), true, false
}

type pageWriter struct {
	ctx     context.Context
	oc      *graphql.OperationContext
	b       *answerBudget
	buf     *bytes.Buffer
	failed  bool // the executor must write this page
	stopped bool // the answer passed its ceiling
	// edgeCtx are the contexts the items and files methods read their alias from.
	edgeCtx map[*ast.Field]context.Context
}

// fields collects the fields of sel for an object of the given implementors, as the
// generated code does; a deferred fragment needs the executor.
func (w *pageWriter) fields(sel ast.SelectionSet, implementors []string) []graphql.CollectedField {
	fs := graphql.CollectFields(w.oc, sel, implementors)
	for _, f := range fs {
		if len(f.Deferrables) > 0 {
			w.failed = true
		}
	}
	return fs
}

func (w *pageWriter) key(i int, f graphql.CollectedField) {
	if i > 0 {
		w.buf.WriteByte(',')
	}
	graphql.MarshalString(f.Alias).MarshalGQL(w.buf)
	w.buf.WriteByte(':')
}

func (w *pageWriter) null() { w.buf.WriteString("null") }

// nonNull writes m, which the schema says is never null; a null makes the executor answer.
func (w *pageWriter) nonNull(m graphql.Marshaler) {
	if m == graphql.Null {
		w.failed = true
		return
	}
	m.MarshalGQL(w.buf)
}

func (w *pageWriter) str(s *string) {
	if s == nil {
		w.null()
		return
	}
	graphql.MarshalString(*s).MarshalGQL(w.buf)
}

func (w *pageWriter) id(id *uuid.UUID) {
	if id == nil {
		w.null()
		return
	}
	uuidgql.MarshalUUID(*id).MarshalGQL(w.buf)
}

// overBudget charges nothing yet; it tells whether what is written so far would pass the
// answer's ceiling, and stops the page if so.
func (w *pageWriter) overBudget() bool {
	if w.b != nil && w.b.used.Load()+int64(w.buf.Len()) > w.b.max {
		w.stopped = true
	}
	return w.stopped
}

func (w *pageWriter) connection(sel ast.SelectionSet, conn *ent.RecordConnection) {
	writeConnection(w, sel, recordConnectionImplementors, "RecordConnection", conn.TotalCount, &conn.PageInfo, conn.Edges, w.edge)
}

// writeConnection writes a connection of typeName (its implementors): its total, its page
// info and its edges, each by edge, stopping once the answer's ceiling would be passed.
func writeConnection[E any](w *pageWriter, sel ast.SelectionSet, implementors []string, typeName string, total int, info *ent.PageInfo, edges []*E, edge func(ast.SelectionSet, *E)) {
	fs := w.fields(sel, implementors)
	w.buf.WriteByte('{')
	for i, f := range fs {
		if w.failed || w.stopped {
			return
		}
		w.key(i, f)
		switch f.Name {
		case "__typename":
			graphql.MarshalString(typeName).MarshalGQL(w.buf)
		case "totalCount":
			w.nonNull(graphql.MarshalInt(total))
		case "pageInfo":
			w.pageInfo(f.Selections, info)
		case "edges":
			if edges == nil {
				w.null()
				continue
			}
			w.buf.WriteByte('[')
			for j, e := range edges {
				if j > 0 {
					w.buf.WriteByte(',')
				}
				if e == nil {
					w.null()
					continue
				}
				edge(f.Selections, e)
				if w.failed || w.overBudget() {
					return
				}
			}
			w.buf.WriteByte(']')
		default:
			w.failed = true
		}
	}
	w.buf.WriteByte('}')
}

func (w *pageWriter) pageInfo(sel ast.SelectionSet, p *ent.PageInfo) {
	fs := w.fields(sel, pageInfoImplementors)
	w.buf.WriteByte('{')
	for i, f := range fs {
		w.key(i, f)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("PageInfo").MarshalGQL(w.buf)
		case "hasNextPage":
			graphql.MarshalBoolean(p.HasNextPage).MarshalGQL(w.buf)
		case "hasPreviousPage":
			graphql.MarshalBoolean(p.HasPreviousPage).MarshalGQL(w.buf)
		case "startCursor":
			if p.StartCursor == nil {
				w.null()
			} else {
				p.StartCursor.MarshalGQL(w.buf)
			}
		case "endCursor":
			if p.EndCursor == nil {
				w.null()
			} else {
				p.EndCursor.MarshalGQL(w.buf)
			}
		default:
			w.failed = true
		}
	}
	w.buf.WriteByte('}')
}

func (w *pageWriter) edge(sel ast.SelectionSet, e *ent.RecordEdge) {
	writeEdge(w, sel, recordEdgeImplementors, "RecordEdge", e.Cursor, e.Node, w.record)
}

// writeEdge writes an edge of typeName (its implementors): its cursor and its node.
func writeEdge[N any](w *pageWriter, sel ast.SelectionSet, implementors []string, typeName string, cursor ent.Cursor, node *N, write func(ast.SelectionSet, *N)) {
	fs := w.fields(sel, implementors)
	w.buf.WriteByte('{')
	for i, f := range fs {
		if w.failed {
			return
		}
		w.key(i, f)
		switch f.Name {
		case "__typename":
			graphql.MarshalString(typeName).MarshalGQL(w.buf)
		case "cursor":
			cursor.MarshalGQL(w.buf)
		case "node":
			if node == nil {
				w.null()
			} else {
				write(f.Selections, node)
			}
		default:
			w.failed = true
		}
	}
	w.buf.WriteByte('}')
}

// methodCtx is the context the generated code gives a method field (items, files): the
// entgql methods read the field's alias from it to find the edges loaded under that name.
func (w *pageWriter) methodCtx(f graphql.CollectedField) context.Context {
	if c, ok := w.edgeCtx[f.Field]; ok {
		return c
	}
	if w.edgeCtx == nil {
		w.edgeCtx = map[*ast.Field]context.Context{}
	}
	c := graphql.WithFieldContext(w.ctx, &graphql.FieldContext{Object: "Record", Field: f, IsMethod: true})
	w.edgeCtx[f.Field] = c
	return c
}

func (w *pageWriter) record(sel ast.SelectionSet, r *ent.Record) {
	fs := w.fields(sel, recordImplementors)
	w.buf.WriteByte('{')
	for i, f := range fs {
		if w.failed {
			return
		}
		if len(f.Arguments) > 0 {
			w.failed = true
			return
		}
		w.key(i, f)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("Record").MarshalGQL(w.buf)
		case "id":
			w.nonNull(uuidgql.MarshalUUID(r.ID))
		case "createdAt":
			w.nonNull(timegql.MarshalTime(r.CreatedAt))
		case "updatedAt":
			w.nonNull(timegql.MarshalTime(r.UpdatedAt))
		case "isActive":
			graphql.MarshalBoolean(r.IsActive).MarshalGQL(w.buf)
		case "farmID":
			w.nonNull(uuidgql.MarshalUUID(r.FarmID))
		case "type":
			r.Type.MarshalGQL(w.buf)
		case "name":
			w.nonNull(graphql.MarshalString(r.Name))
		case "description":
			w.str(r.Description)
		case "appliedAt":
			w.nonNull(timegql.MarshalTime(r.AppliedAt))
		case "acknowledgeWithdrawal":
			graphql.MarshalBoolean(r.AcknowledgeWithdrawal).MarshalGQL(w.buf)
		case "items":
			items, err := r.Items(w.methodCtx(f))
			if err != nil {
				w.failed = true
				return
			}
			if items == nil {
				w.null()
				continue
			}
			w.buf.WriteByte('[')
			for j, it := range items {
				if it == nil {
					w.failed = true // a null element of [RecordItem!]: the executor's error
					return
				}
				if j > 0 {
					w.buf.WriteByte(',')
				}
				w.item(f.Selections, it)
				if w.overBudget() {
					return
				}
			}
			w.buf.WriteByte(']')
		case "files":
			files, err := r.Files(w.methodCtx(f))
			if err != nil {
				w.failed = true
				return
			}
			if files == nil {
				w.null()
				continue
			}
			w.buf.WriteByte('[')
			for j, fl := range files {
				if fl == nil {
					w.failed = true
					return
				}
				if j > 0 {
					w.buf.WriteByte(',')
				}
				w.file(f.Selections, fl)
			}
			w.buf.WriteByte(']')
		default: // the trail's fields; animals, groups, animalsConnection and anything added later fail
			if !w.trail(f.Name, bookTrail{r.RecordedAt, r.RecordedByUserID, r.RecordedByClientID, r.VoidedAt,
				r.VoidedByUserID, r.VoidedByClientID, r.VoidReason, r.AmendsID, r.SupersededByID}) {
				return
			}
		}
	}
	w.buf.WriteByte('}')
}

func (w *pageWriter) item(sel ast.SelectionSet, it *ent.RecordItem) {
	fs := w.fields(sel, recordItemImplementors)
	w.buf.WriteByte('{')
	for i, f := range fs {
		if w.failed {
			return
		}
		w.key(i, f)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("RecordItem").MarshalGQL(w.buf)
		case "id":
			w.nonNull(uuidgql.MarshalUUID(it.ID))
		case "createdAt":
			w.nonNull(timegql.MarshalTime(it.CreatedAt))
		case "updatedAt":
			w.nonNull(timegql.MarshalTime(it.UpdatedAt))
		case "isActive":
			graphql.MarshalBoolean(it.IsActive).MarshalGQL(w.buf)
		case "recordID":
			w.nonNull(uuidgql.MarshalUUID(it.RecordID))
		case "name":
			w.str(it.Name)
		case "description":
			w.str(it.Description)
		case "metadata":
			if it.Metadata == nil {
				w.null()
			} else {
				it.Metadata.MarshalGQL(w.buf)
			}
		default:
			if !w.trail(f.Name, bookTrail{it.RecordedAt, it.RecordedByUserID, it.RecordedByClientID, it.VoidedAt,
				it.VoidedByUserID, it.VoidedByClientID, it.VoidReason, it.AmendsID, it.SupersededByID}) {
				return
			}
		}
	}
	w.buf.WriteByte('}')
}

// bookTrail is the audit trail a record and an item both carry (ent/schema/trail's
// BookMixin): who recorded them and when, a void, and the amendment links.
type bookTrail struct {
	recordedAt               time.Time
	recordedByUserID         *uuid.UUID
	recordedByClientID       *string
	voidedAt                 *time.Time
	voidedByUserID           *uuid.UUID
	voidedByClientID         *string
	voidReason               *string
	amendsID, supersededByID *uuid.UUID
}

// trail writes the trail's field name; for any other name it marks the page failed (the
// executor answers) and reports false.
func (w *pageWriter) trail(name string, t bookTrail) bool {
	switch name {
	case "recordedAt":
		timegql.MarshalTime(t.recordedAt).MarshalGQL(w.buf)
	case "recordedByUserID":
		w.id(t.recordedByUserID)
	case "recordedByClientID":
		w.str(t.recordedByClientID)
	case "voidedAt":
		if t.voidedAt == nil {
			w.null()
		} else {
			timegql.MarshalTime(*t.voidedAt).MarshalGQL(w.buf)
		}
	case "voidedByUserID":
		w.id(t.voidedByUserID)
	case "voidedByClientID":
		w.str(t.voidedByClientID)
	case "voidReason":
		w.str(t.voidReason)
	case "amendsID":
		w.id(t.amendsID)
	case "supersededByID":
		w.id(t.supersededByID)
	default:
		w.failed = true
		return false
	}
	return true
}

func (w *pageWriter) file(sel ast.SelectionSet, fl *ent.File) {
	fs := w.fields(sel, fileImplementors)
	w.buf.WriteByte('{')
	for i, f := range fs {
		if w.failed {
			return
		}
		w.key(i, f)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("File").MarshalGQL(w.buf)
		case "id":
			w.nonNull(uuidgql.MarshalUUID(fl.ID))
		case "createdAt":
			w.nonNull(timegql.MarshalTime(fl.CreatedAt))
		case "updatedAt":
			w.nonNull(timegql.MarshalTime(fl.UpdatedAt))
		case "isActive":
			graphql.MarshalBoolean(fl.IsActive).MarshalGQL(w.buf)
		case "farmID":
			w.nonNull(uuidgql.MarshalUUID(fl.FarmID))
		case "name":
			w.nonNull(graphql.MarshalString(fl.Name))
		case "mimeType":
			w.nonNull(graphql.MarshalString(fl.MimeType))
		case "size":
			w.nonNull(graphql.MarshalInt64(fl.Size))
		default:
			w.failed = true
			return
		}
	}
	w.buf.WriteByte('}')
}
