package graph

import (
	"bytes"
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/dategql"
	"github.com/herdbook/herdbook/ent/schema/timegql"
	"github.com/herdbook/herdbook/ent/schema/uuidgql"
	"github.com/herdbook/herdbook/graph/model"
)

// The register page (Farm.animals with each animal's profile, the web app's Register
// document) is written in one pass as the records page is (fastpage.go): a profile of the
// page of 50 on a farm of 10,000 animals put a third of GraphQL's CPU in the executor's
// per-field work, a goroutine per edge and the field-set writing (docs/performance.md,
// "GraphQL against REST on the app's screens"), where REST answers the same page with
// encoding/json. The connection is still resolved by registerAnimals, which loads the
// page's profiles into the operation's references; the writer reads them there as
// Animal.profile does (Resolver.profile) and lets the executor answer the whole connection
// when one is missing. It knows the animal's own columns and its profile's values; a field
// with a resolver of its own (dam, sire, identifiers, groups, withdrawal, timeline...), an
// argument other than profile's asOf, @defer, or a value the executor would answer with an
// error sends the connection to the executor. TestFastAnimalsPageMatches holds the bytes
// to the executor's.

// animalsPage writes conn, the value of an animals connection field of fc, as the executor
// would; ok and stopped as recordsPage's.
func animalsPage(ctx context.Context, fc *graphql.FieldContext, conn *ent.AnimalConnection, b *answerBudget) (out []byte, ok, stopped bool) {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || conn == nil {
		return nil, false, false
	}
	w := pageWriter{ctx: ctx, oc: oc, b: b, buf: bytes.NewBuffer(make([]byte, 0, 16<<10))}
	w.animalConnection(fc.Field.Selections, conn)
	switch {
	case w.stopped:
		return nil, false, true
	case w.failed:
		return nil, false, false
	}
	return w.buf.Bytes(), true, false
}

func (w *pageWriter) animalConnection(sel ast.SelectionSet, conn *ent.AnimalConnection) {
	writeConnection(w, sel, animalConnectionImplementors, "AnimalConnection", conn.TotalCount, &conn.PageInfo, conn.Edges, w.animalEdge)
}

func (w *pageWriter) animalEdge(sel ast.SelectionSet, e *ent.AnimalEdge) {
	writeEdge(w, sel, animalEdgeImplementors, "AnimalEdge", e.Cursor, e.Node, w.animal)
}

func (w *pageWriter) animal(sel ast.SelectionSet, a *ent.Animal) {
	fs := w.fields(sel, animalImplementors)
	w.buf.WriteByte('{')
	for i, f := range fs {
		if w.failed {
			return
		}
		if len(f.Arguments) > 0 && f.Name != "profile" {
			w.failed = true
			return
		}
		w.key(i, f)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("Animal").MarshalGQL(w.buf)
		case "id":
			w.nonNull(uuidgql.MarshalUUID(a.ID))
		case "createdAt":
			w.nonNull(timegql.MarshalTime(a.CreatedAt))
		case "updatedAt":
			w.nonNull(timegql.MarshalTime(a.UpdatedAt))
		case "isActive":
			graphql.MarshalBoolean(a.IsActive).MarshalGQL(w.buf)
		case "farmID":
			w.nonNull(uuidgql.MarshalUUID(a.FarmID))
		case "tag":
			w.nonNull(graphql.MarshalString(a.Tag))
		case "name":
			w.str(a.Name)
		case "profile":
			p := w.keptProfile(f, a)
			if p == nil {
				w.failed = true
				return
			}
			w.profile(f.Selections, p)
		default: // a resolver of its own (dam, sire, identifiers, groups, withdrawal, ...)
			w.failed = true
			return
		}
	}
	w.buf.WriteByte('}')
}

// keptProfile is the profile Animal.profile would answer for a when the page's resolver
// loaded it already (Resolver.profile's lookup), else nil.
func (w *pageWriter) keptProfile(f graphql.CollectedField, a *ent.Animal) *model.AnimalProfile {
	refs, ok := w.ctx.Value(referencesKey{}).(*references)
	if !ok {
		return nil
	}
	var asOf *string
	if v := f.ArgumentMap(w.oc.Variables)["asOf"]; v != nil {
		d, err := dategql.UnmarshalDate(v)
		if err != nil {
			return nil
		}
		asOf = &d
	}
	refs.mu.Lock()
	defer refs.mu.Unlock()
	day := refs.days[a.ID]
	if asOf != nil {
		day = *asOf
	}
	return refs.profiles[profileKey{a.ID, day}]
}

// date writes an optional Date as marshalODate2ᚖstring does.
func (w *pageWriter) date(d *string) {
	if d == nil {
		w.null()
		return
	}
	dategql.MarshalDate(*d).MarshalGQL(w.buf)
}

// float writes an optional Float as marshalOFloat2ᚖfloat64 does; a value it cannot write
// (NaN, an infinity) is the executor's error.
func (w *pageWriter) float(v *float64) {
	if v == nil {
		w.null()
		return
	}
	if err := graphql.MarshalFloatContext(*v).MarshalGQLContext(w.ctx, w.buf); err != nil {
		w.failed = true
	}
}

func (w *pageWriter) profile(sel ast.SelectionSet, p *model.AnimalProfile) {
	fs := w.fields(sel, animalProfileImplementors)
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
			graphql.MarshalString("AnimalProfile").MarshalGQL(w.buf)
		case "asOf":
			w.nonNull(dategql.MarshalDate(p.AsOf))
		case "sex":
			if p.Sex == nil {
				w.null()
			} else {
				p.Sex.MarshalGQL(w.buf)
			}
		case "birthDate":
			w.date(p.BirthDate)
		case "breed":
			w.str(p.Breed)
		case "damID":
			w.id(p.DamID)
		case "sireID":
			w.id(p.SireID)
		case "geneticDamID":
			w.id(p.GeneticDamID)
		case "surrogateDamID":
			w.id(p.SurrogateDamID)
		case "intact":
			if p.Intact == nil {
				w.null()
			} else {
				graphql.MarshalBoolean(*p.Intact).MarshalGQL(w.buf)
			}
		case "status":
			p.Status.MarshalGQL(w.buf)
		case "statusDate":
			w.date(p.StatusDate)
		case "groupIDs":
			if p.GroupIDs == nil {
				w.failed = true
				return
			}
			w.buf.WriteByte('[')
			for j, id := range p.GroupIDs {
				if j > 0 {
					w.buf.WriteByte(',')
				}
				w.nonNull(uuidgql.MarshalUUID(id))
			}
			w.buf.WriteByte(']')
		case "identifiers":
			if p.Identifiers == nil {
				w.failed = true
				return
			}
			w.buf.WriteByte('[')
			for j, id := range p.Identifiers {
				if id == nil {
					w.failed = true
					return
				}
				if j > 0 {
					w.buf.WriteByte(',')
				}
				w.identifier(f.Selections, id)
			}
			w.buf.WriteByte(']')
		case "weightKg":
			w.float(p.WeightKg)
		case "weighedOn":
			w.date(p.WeighedOn)
		case "adgKg":
			w.float(p.AdgKg)
		default: // dam and sire resolve animals
			w.failed = true
			return
		}
	}
	w.buf.WriteByte('}')
}

func (w *pageWriter) identifier(sel ast.SelectionSet, id *model.Identifier) {
	fs := w.fields(sel, identifierImplementors)
	w.buf.WriteByte('{')
	for i, f := range fs {
		w.key(i, f)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("Identifier").MarshalGQL(w.buf)
		case "scheme":
			id.Scheme.MarshalGQL(w.buf)
		case "value":
			w.nonNull(graphql.MarshalString(id.Value))
		default:
			w.failed = true
			return
		}
	}
	w.buf.WriteByte('}')
}
