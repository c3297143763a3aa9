package herdbook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/birthpreview"
	"github.com/herdbook/herdbook/ent/birthsettings"
	"github.com/herdbook/herdbook/ent/followupprotocol"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
)

// BirthSettings is a farm's current birth-history settings: nil until the farm sets them,
// and nil again after the farm's species changes, until settings for the new species are
// set. Settings are bound to a species: a sheep is never reviewed with cattle gestation.
type BirthSettings struct {
	Species  string
	Settings *evidence.Settings
	// Version is the version of Settings, 0 when there are none.
	Version int
	// latest is the newest stored version, whatever its species: the next one follows it.
	latest int
}

// BirthSettings returns the farm's species and current settings.
func (s *Service) BirthSettings(ctx context.Context, farmID uuid.UUID) (BirthSettings, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return BirthSettings{}, err
	}
	return s.birthSettings(ctx, farmID)
}

func (s *Service) birthSettings(ctx context.Context, farmID uuid.UUID) (BirthSettings, error) {
	out, _, err := s.loadBirthSettings(ctx, farmID, nil)
	return out, err
}

// damKnownCol is the column a review's settings statement adds: whether its dam is an
// animal of the farm.
const damKnownCol = "review_dam_known"

// loadBirthSettings reads the farm's current settings. With a dam, it also reports whether
// the dam is an animal of the farm (inactive ones included): the newest settings row carries
// the answer as an extra column, so a review pays one statement for both; a farm without
// settings asks with a statement of its own.
func (s *Service) loadBirthSettings(ctx context.Context, farmID uuid.UUID, dam *uuid.UUID) (BirthSettings, bool, error) {
	c := s.Client(ctx)
	// The farm the request's membership check loaded, when there is one: its species is
	// the request's snapshot of the farm, and reading it again would cost a statement.
	f := viewerFarm(ctx, farmID)
	if f == nil {
		var err error
		if f, err = c.Farm.Get(ctx, farmID); err != nil {
			return BirthSettings{}, false, notFound(err, "farm", farmID)
		}
	}
	out := BirthSettings{Species: string(f.Species)}
	q := c.BirthSettings.Query().Where(birthsettings.FarmID(farmID))
	if dam != nil {
		q.Where(func(sel *sql.Selector) {
			a := sql.Table(animal.Table)
			sel.AppendSelectExprAs(sql.Exists(sql.Dialect(sel.Dialect()).Select(a.C(animal.FieldID)).From(a).
				Where(sql.And(sql.EQ(a.C(animal.FieldID), *dam), sql.EQ(a.C(animal.FieldFarmID), farmID)))), damKnownCol)
		})
	}
	row, err := q.Order(ent.Desc(birthsettings.FieldVersion)).First(ctx)
	switch {
	case ent.IsNotFound(err) && dam != nil:
		known, err := s.isFarmAnimal(ctx, farmID, *dam)
		return out, known, err
	case ent.IsNotFound(err):
		return out, false, nil
	case err != nil:
		return out, false, err
	}
	known := false
	if dam != nil {
		if known, err = boolValue(row, damKnownCol); err != nil {
			return out, false, err
		}
	}
	out.latest = row.Version
	if row.Settings.Species != out.Species {
		return out, known, nil // set for the farm's former species: they do not apply
	}
	st := row.Settings
	out.Settings, out.Version = &st, row.Version
	return out, known, nil
}

// isFarmAnimal reports whether id is an animal of the farm, inactive ones included.
func (s *Service) isFarmAnimal(ctx context.Context, farmID, id uuid.UUID) (bool, error) {
	return s.Client(ctx).Animal.Query().Where(animal.ID(id), animal.FarmID(farmID)).Exist(IncludeInactive(ctx))
}

// PutBirthSettings replaces the farm's settings whole with a new version and marks every
// preview stale, approved ones included: each was made with settings that no longer hold,
// and a task update that names its approved preview must learn that (SPEC farm tasks rule 3).
func (s *Service) PutBirthSettings(ctx context.Context, farmID uuid.UUID, in evidence.Settings) (BirthSettings, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords)
	if err != nil {
		return BirthSettings{}, err
	}
	if err := checkTextIn(in); err != nil {
		return BirthSettings{}, err
	}
	var out BirthSettings
	err = s.inTx(ctx, func(ctx context.Context) error {
		cur, err := s.birthSettings(ctx, farmID)
		if err != nil {
			return err
		}
		if errs := in.Validate(cur.Species); len(errs) > 0 {
			return invalidFromEvidence("", errs)
		}
		if in.BirthWindows == nil {
			in.BirthWindows = []evidence.Window{}
		}
		c := s.Client(ctx)
		row, err := c.BirthSettings.Create().SetFarmID(farmID).SetVersion(cur.latest + 1).
			SetSettings(in).SetCreatedBy(v.UserID).Save(ctx)
		if err != nil {
			return constraint(err, "the settings were changed at the same time; try again")
		}
		if err := s.markPreviewsStale(ctx, farmID); err != nil {
			return err
		}
		st := row.Settings
		out = BirthSettings{Species: cur.Species, Settings: &st, Version: row.Version, latest: row.Version}
		return nil
	})
	return out, err
}

// markPreviewsStale marks every preview of the farm stale: the settings they were made
// with no longer hold.
func (s *Service) markPreviewsStale(ctx context.Context, farmID uuid.UUID) error {
	return s.Client(ctx).BirthPreview.Update().Where(birthpreview.FarmID(farmID), birthpreview.Stale(false)).
		SetStale(true).Exec(ctx)
}

func invalidFromEvidence(prefix string, errs []evidence.FieldError) error {
	var fe fieldErrors
	for _, e := range errs {
		fe.add(prefix+e.Field, "%s", e.Message)
	}
	return fe.err()
}

// BirthEvidence reviews which sires could have fathered the dam's birth on birthDate, from
// the farm's dated facts. It reads only, and costs a bounded number of queries whatever the
// size of the farm.
func (s *Service) BirthEvidence(ctx context.Context, farmID uuid.UUID, damID, birthDate string) (evidence.Evidence, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords, ScopeReadAnimals); err != nil {
		return evidence.Evidence{}, err
	}
	ev, _, err := s.review(ctx, farmID, damID, birthDate)
	return ev, err
}

// review validates the question, checks the dam belongs to the farm (in the settings'
// statement), loads the facts that can matter and runs the engine. It returns the settings
// version used (0: none).
func (s *Service) review(ctx context.Context, farmID uuid.UUID, damID, birthDate string) (evidence.Evidence, int, error) {
	in := evidence.Input{DamID: damID, BirthDate: birthDate}
	if errs := in.Validate(); len(errs) > 0 {
		return evidence.Evidence{}, 0, invalidFromEvidence("", errs)
	}
	dam := uuid.MustParse(strings.ToLower(damID))
	st, ok, err := s.loadBirthSettings(ctx, farmID, &dam)
	if err != nil {
		return evidence.Evidence{}, 0, err
	}
	if !ok {
		return evidence.Evidence{}, 0, Errorf(ENOTFOUND, "dam %s is not an animal of this farm", dam)
	}
	in.Settings = st.Settings
	in.DamID = dam.String()
	scope := evidence.ScopeOf(in)
	if in.Facts, err = s.loadFacts(ctx, farmID, dam, in.BirthDate, scope.From, scope.Through); err != nil {
		return evidence.Evidence{}, 0, err
	}
	in.Facts = slices.DeleteFunc(in.Facts, func(f evidence.Fact) bool { return !scope.Keep(f) })
	return evidence.Review(in), st.Version, nil
}

// loadFacts loads the active facts of the farm that can bear on a birth of dam on born. With
// a conception window [from, through], one statement loads the dam's own facts (and
// exposures and births that name her), the exposures of the groups her membership facts name
// that overlap the window, and the facts of every sire those exposures or her own name, up to
// through (reviewFacts). Without one, no exposure can place a sire, and it loads only the
// dam's facts. One more statement loads the DNA results about the offspring her birth facts
// on that date name, when there are any, and one an exposure the review cannot tie to her,
// when no membership of hers starts by the end of the window. Current group links are never
// read. Dates compare as text: they are all YYYY-MM-DD.
func (s *Service) loadFacts(ctx context.Context, farmID, dam uuid.UUID, born, from, through string) ([]evidence.Fact, error) {
	c := s.Client(ctx)
	// active holds the items that carry a fact, of the farm's active records.
	active := []predicate.RecordItem{recorditem.FactKindNotNil(), itemsOfFarm(farmID, liveRecord(ctx))}
	// query loads the facts matching where, reading only the columns the review needs, and
	// the fact itself as JSON text (withFactJSON).
	query := func(limit int, where ...predicate.RecordItem) ([]*ent.RecordItem, error) {
		q := c.RecordItem.Query().Where(active...).Where(where...).Where(withFactJSON)
		if limit > 0 {
			q.Limit(limit)
		}
		return q.Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldFactKind,
			recorditem.FieldFactSubject, recorditem.FieldFactDam, recorditem.FieldFactGroup, recorditem.FieldFactDate).
			All(ctx)
	}
	seen := map[uuid.UUID]bool{}
	var facts []evidence.Fact
	add := func(items []*ent.RecordItem) error {
		for _, it := range items {
			if seen[it.ID] {
				continue
			}
			seen[it.ID] = true
			var raw []byte
			if err := scanValue(it, factJSONCol, func(b []byte) error { raw = b; return nil }); err != nil {
				return err
			}
			if raw == nil {
				continue // no birth_history key
			}
			f, errs := evidence.ParseFact(raw)
			if len(errs) > 0 {
				continue
			}
			f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
			facts = append(facts, f)
		}
		return nil
	}
	ownFact := recorditem.Or(recorditem.FactSubject(dam), recorditem.FactDam(dam))
	window := through != "" && from != ""
	var loaded []*ent.RecordItem
	var err error
	if window {
		loaded, err = query(0, reviewFacts(farmID, append(slices.Clone(active), liveItem(ctx)), ownFact, from, through))
	} else {
		loaded, err = query(0, ownFact)
	}
	if err != nil {
		return nil, err
	}
	// The dam's own facts first: her births name the offspring whose DNA results count.
	var own, others []*ent.RecordItem
	for _, it := range loaded {
		if (it.FactSubject != nil && *it.FactSubject == dam) || (it.FactDam != nil && *it.FactDam == dam) {
			own = append(own, it)
		} else {
			others = append(others, it)
		}
	}
	if err := add(own); err != nil {
		return nil, err
	}
	// DNA parentage results about the offspring of this birth (one more query, only when a
	// birth fact of the dam on that date names offspring).
	var kids []uuid.UUID
	for _, f := range facts {
		if f.Kind == evidence.KindBirth && f.DamID == dam.String() && f.Date == born {
			for _, o := range f.OffspringIDs {
				kids = append(kids, uuid.MustParse(o))
			}
		}
	}
	if err := add(others); err != nil {
		return nil, err
	}
	if len(kids) > 0 {
		dna, err := query(0, recorditem.FactKind(string(evidence.KindDNAParentage)), recorditem.FactSubjectIn(dedupe(kids)...))
		if err != nil {
			return nil, err
		}
		if err := add(dna); err != nil {
			return nil, err
		}
	}
	if !window {
		return facts, nil
	}
	// Outside animals (AI sires, donors) have no facts: a service's sire without a profile
	// may be one (one more statement, only then).
	facts, err = s.withOutsideProfiles(ctx, farmID, facts, func(f evidence.Fact) bool { return evidence.IsService(f.Kind) })
	if err != nil {
		return nil, err
	}
	early := false // a membership of the dam that starts by the end of the window
	for _, it := range own {
		early = early || (it.FactKind != nil && *it.FactKind == string(evidence.KindMembership) && it.FactGroup != nil &&
			it.FactDate != nil && *it.FactDate <= through)
	}
	if !early {
		// The review notes group exposures it cannot tie to a dam without memberships; one
		// such exposure is enough for that note, and its sire cannot be a candidate.
		untied, err := query(1, recorditem.FactKind(string(evidence.KindExposure)), recorditem.FactGroupNotNil(), overlaps(from, through))
		if err != nil {
			return nil, err
		}
		if err := add(untied); err != nil {
			return nil, err
		}
	}
	return facts, nil
}

// overlaps holds the facts whose span meets [from, through].
func overlaps(from, through string) predicate.RecordItem {
	return recorditem.And(recorditem.FactDateLTE(through),
		recorditem.Or(recorditem.FactUntilIsNil(), recorditem.FactUntilGTE(from)))
}

// factJSONCol is the column under which loadFacts reads an item's birth_history fact.
const factJSONCol = "review_fact"

// withFactJSON selects the birth_history value of an item's metadata as JSON text, NULL when
// there is none (-> means the same on PostgreSQL's jsonb and on SQLite's JSON text). The
// review hands it to evidence.ParseFact as it is: reading the metadata through ent would
// decode it whole into a map, only for the fact to be encoded again and parsed.
func withFactJSON(sel *sql.Selector) {
	sel.AppendSelectExprAs(sql.Expr(sel.C(recorditem.FieldMetadata)+" -> '"+FactKey+"'"), factJSONCol)
}

// The common table expressions of reviewFacts, and its derived table of sires.
const (
	ownCTE       = "review_own"
	exposuresCTE = "review_exposures"
	matesCTE     = "review_mates"
	siresAlias   = "review_sire"
)

// reviewFacts selects, in one statement, what a review with a conception window [from,
// through] reads: the facts matching active and own (the dam's), the exposures of the
// groups her memberships name that overlap the window, and the facts of every sire those
// exposures or her own exposures name that can matter: his profile, and his castrations,
// purchases, movements, sales and deaths up to through.
//
// The items are picked by id from a union whose parts each go through an index: her facts
// and the exposures are common table expressions, read once, that the later parts take
// their groups and sires from. A union rather than an OR of the conditions: PostgreSQL
// cannot drive an OR that holds an IN (subquery) by an index, and would filter the farm's
// whole history instead. Each part states active itself (and that the item is active: the
// soft-delete interceptor does not reach a subquery), except the sires' facts, which the
// statement's outer condition holds to it; they name the farm (farmID) all the same, as every
// part does, so that a Citus cluster sends the statement to the farm's shard alone
// (docs/scaling.md, "Statements on one shard"). The statement's text is the same for every dam,
// so the database prepares and plans it once per connection.
//
// SQLite keeps no statistics and guesses that a fact_kind is rare: left to itself it would
// read every profile of the farm to find the sires' ones, and every exposure up to through
// to find her groups' ones (on a farm of 100,000 records, 3.4 times the time of the
// statements this one replaced). So, on both databases alike: the exposures and the sires'
// facts are joined with CROSS JOIN, which SQLite keeps in the order written (her
// memberships, then their groups' exposures; the sires, then their facts) and PostgreSQL
// plans as any join; the exposures' date bound is written NOT (fact_date > through), true
// of the same rows, NULL included, but not taken by SQLite for a range on the (fact_kind,
// fact_date) index; and, on SQLite only, the common table expressions are MATERIALIZED
// (with), as PostgreSQL makes any it reads twice.
func reviewFacts(farmID uuid.UUID, active []predicate.RecordItem, own predicate.RecordItem, from, through string) predicate.RecordItem {
	kinds := []string{string(evidence.KindCastration), string(evidence.KindPurchase),
		string(evidence.KindMovementIn), string(evidence.KindMovementOut), string(evidence.KindSale), string(evidence.KindDeath),
		string(evidence.KindMembership), string(evidence.KindMembershipEnd)}
	sireFact := recorditem.Or(recorditem.FactKind(string(evidence.KindProfile)),
		recorditem.And(recorditem.FactKindIn(kinds...), recorditem.FactDateLTE(through)))
	return func(sel *sql.Selector) {
		d := sql.Dialect(sel.Dialect())
		// where is the condition preds set on the items under the alias t.
		where := func(t *sql.SelectTable, preds ...predicate.RecordItem) *sql.Predicate {
			q := d.Select().From(t)
			for _, p := range preds {
				p(q)
			}
			return q.P()
		}
		// crossJoin is the FROM clause "outer CROSS JOIN record_items AS as".
		crossJoin := func(outer func(*sql.Builder), as string) sql.Querier {
			return sql.ExprFunc(func(b *sql.Builder) {
				outer(b)
				b.WriteString(" CROSS JOIN ").Ident(recorditem.Table).WriteString(" AS ").Ident(as)
			})
		}
		ofFarm := recorditem.And(active...) // active holds the item condition too (liveItem)
		mine, exp := d.Table(ownCTE), d.Table(exposuresCTE)
		// ownOf picks a column of her facts of one kind.
		ownOf := func(col string, kind evidence.Kind) *sql.Selector {
			return d.Select(mine.C(col)).From(mine).Where(sql.EQ(mine.C(recorditem.FieldFactKind), string(kind)))
		}

		o := d.Table(recorditem.Table).As("own_fact")
		ownFacts := d.Select(o.Columns(recorditem.FieldID, recorditem.FieldFactKind, recorditem.FieldFactSubject, recorditem.FieldFactGroup)...).
			From(o).Where(where(o, ofFarm, own))

		e := d.Table(recorditem.Table).As("exposure")
		exposures := d.Select(e.Columns(recorditem.FieldID, recorditem.FieldFactSubject)...).
			FromExpr(crossJoin(func(b *sql.Builder) { b.Ident(ownCTE) }, "exposure")).
			Where(sql.And(
				sql.EQ(mine.C(recorditem.FieldFactKind), string(evidence.KindMembership)),
				sql.ColumnsEQ(e.C(recorditem.FieldFactGroup), mine.C(recorditem.FieldFactGroup)),
				where(e, ofFarm, recorditem.FactKind(string(evidence.KindExposure)),
					recorditem.Or(recorditem.FactUntilIsNil(), recorditem.FactUntilGTE(from))),
				sql.Not(sql.GT(e.C(recorditem.FieldFactDate), through)),
			))

		// The memberships of her groups by recorded males that reach into the window: natural
		// service (a bull's dated membership of her group is exposure while both are in it).
		// A member is male by his profile, found through the partial index of the facts that
		// say male (recorditem_male_fact, ent/schema/record.go): the sex and the kind are
		// written as literals, not arguments, so that PostgreSQL's generic plan of the
		// prepared statement, which does not know its arguments, can still take that index.
		m := d.Table(recorditem.Table).As("mate")
		pr := d.Table(recorditem.Table).As("mate_profile")
		male := d.Select(pr.C(recorditem.FieldID)).From(pr).Where(sql.And(
			sql.ColumnsEQ(pr.C(recorditem.FieldFactSubject), m.C(recorditem.FieldFactSubject)),
			sql.P(func(b *sql.Builder) {
				b.WriteString(pr.C(recorditem.FieldFactKind) + " = '" + string(evidence.KindProfile) + "' AND " +
					pr.C(recorditem.FieldMetadata) + " -> '" + FactKey + "' ->> 'sex' = '" + evidence.SexMale + "'")
			}),
			where(pr, ofFarm)))
		mates := d.Select(m.Columns(recorditem.FieldID, recorditem.FieldFactSubject)...).
			FromExpr(crossJoin(func(b *sql.Builder) { b.Ident(ownCTE) }, "mate")).
			Where(sql.And(
				sql.EQ(mine.C(recorditem.FieldFactKind), string(evidence.KindMembership)),
				sql.ColumnsEQ(m.C(recorditem.FieldFactGroup), mine.C(recorditem.FieldFactGroup)),
				where(m, ofFarm, recorditem.FactKind(string(evidence.KindMembership)),
					recorditem.Or(recorditem.FactUntilIsNil(), recorditem.FactUntilGTE(from))),
				sql.Not(sql.GT(m.C(recorditem.FieldFactDate), through)),
				sql.Exists(male),
			))
		mt := d.Table(matesCTE)

		// UNION: a sire exposed twice (or a dam in one group twice) must not double his facts.
		// Her services name their sires as she names her exposures'.
		services := d.Select(mine.C(recorditem.FieldFactSubject)).From(mine).
			Where(sql.In(mine.C(recorditem.FieldFactKind), string(evidence.KindInsemination),
				string(evidence.KindHandMating), string(evidence.KindEmbryoTransfer)))
		sires := d.Select(exp.C(recorditem.FieldFactSubject)).From(exp).
			Union(ownOf(recorditem.FieldFactSubject, evidence.KindExposure)).
			Union(services).
			Union(d.Select(mt.C(recorditem.FieldFactSubject)).From(mt))
		sf := d.Table(recorditem.Table).As("sire_fact")
		ofSires := d.Select(sf.C(recorditem.FieldID)).
			FromExpr(crossJoin(func(b *sql.Builder) {
				b.Wrap(func(b *sql.Builder) { b.Join(sires) }).WriteString(" AS ").Ident(siresAlias)
			}, "sire_fact")).
			Where(sql.And(
				sql.ColumnsEQ(sf.C(recorditem.FieldFactSubject), d.Table(siresAlias).C(recorditem.FieldFactSubject)),
				where(sf, recorditem.FarmID(farmID), sireFact),
			))

		ids := d.Select(mine.C(recorditem.FieldID)).From(mine).
			UnionAll(d.Select(exp.C(recorditem.FieldID)).From(exp)).
			UnionAll(d.Select(mt.C(recorditem.FieldID)).From(mt)).
			UnionAll(ofSires).
			Prefix(with(sel.Dialect(), cte{ownCTE, ownFacts}, cte{exposuresCTE, exposures}, cte{matesCTE, mates}))
		sel.Where(sql.In(sel.C(recorditem.FieldID), ids))
	}
}

// cte is a common table expression: its name and its query.
type cte struct {
	name  string
	query *sql.Selector
}

// with is the WITH clause of ctes, each one MATERIALIZED on SQLite: PostgreSQL computes a
// common table expression the statement reads twice once, SQLite may instead expand it in
// each place and plan every place afresh (and PostgreSQL before 12 knows no MATERIALIZED).
func with(dia string, ctes ...cte) sql.Querier {
	return sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("WITH ")
		for i, c := range ctes {
			if i > 0 {
				b.Comma()
			}
			b.Ident(c.name).WriteString(" AS ")
			if dia == dialect.SQLite {
				b.WriteString("MATERIALIZED ")
			}
			b.Wrap(func(b *sql.Builder) { b.Join(c.query) })
		}
	})
}

// WithFactColumns sets the indexed copies of the birth_history fact in metadata on an item
// being created; the seed data uses it to write what the API's write path writes.
func WithFactColumns(c *ent.RecordItemCreate, metadata map[string]any) *ent.RecordItemCreate {
	f, ok, errs := parseFact(metadata)
	if !ok || len(errs) > 0 {
		return c
	}
	return withFactColumns(c, &f)
}

// withFactColumns sets the indexed copies of fact f (none when f is nil).
func withFactColumns(c *ent.RecordItemCreate, f *evidence.Fact) *ent.RecordItemCreate {
	if f == nil {
		return c
	}
	fc := columnsOf(*f)
	return c.SetNillableFactKind(fc.kind).SetNillableFactSubject(fc.subject).SetNillableFactDam(fc.dam).
		SetNillableFactGroup(fc.group).SetNillableFactDate(fc.date).SetNillableFactUntil(fc.until).
		SetNillableFactValue(fc.value).SetNillableFactTail(fc.tail)
}

// factColumns are the indexed copies of an item's fact that loadFacts queries by.
type factColumns struct {
	kind, date, until, value *string
	tail                     *string // identifierTail of an identifier's value
	subject, dam, group      *uuid.UUID
}

func columnsOf(f evidence.Fact) factColumns {
	id := func(s string) *uuid.UUID {
		if u, err := uuid.Parse(s); err == nil {
			return &u
		}
		return nil
	}
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	kind := string(f.Kind)
	c := factColumns{kind: &kind, group: id(f.GroupID)}
	switch f.Kind {
	case evidence.KindExposure, evidence.KindInsemination, evidence.KindHandMating:
		c.subject, c.dam = id(f.SireID), id(f.DamID)
	case evidence.KindEmbryoTransfer:
		// The female served is the recipient, who carries the calf: her facts hold it.
		c.subject, c.dam = id(f.SireID), id(f.RecipientID)
	case evidence.KindBirth:
		c.subject, c.dam = id(f.DamID), id(f.DamID)
	case evidence.KindDNAParentage:
		c.subject = id(f.OffspringID)
	case evidence.KindIdentifier:
		c.subject, c.value, c.tail = id(f.AnimalID), str(f.Value), identifierTail(f.Value)
	default:
		c.subject = id(f.AnimalID)
	}
	c.until = str(f.EndDate)
	c.date = str(factDay(f))
	return c
}

// factDay is a fact's fact_date column: the calendar day of its date, start or birth date,
// the first it has (a treatment may be dated with a date-time; its column keeps the day).
func factDay(f evidence.Fact) string {
	for _, d := range []string{f.Date, f.StartDate, f.BirthDate} {
		if d != "" {
			return d[:min(len(d), 10)]
		}
	}
	return ""
}

// ProtocolLimits bound a follow-up protocol.
const (
	MaxProtocolSteps = 50
	MinOffsetDays    = -365
	MaxOffsetDays    = 3650
)

// FollowUpProtocol is a version of a farm's follow-up steps; version 0 means none is set.
type FollowUpProtocol struct {
	Version int
	Steps   []schematype.ProtocolStep
}

// FollowUpProtocol returns the farm's current protocol.
func (s *Service) FollowUpProtocol(ctx context.Context, farmID uuid.UUID) (FollowUpProtocol, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return FollowUpProtocol{}, err
	}
	return s.protocol(ctx, farmID, 0)
}

// protocol returns version v of the farm's protocol, or the latest when v is 0.
func (s *Service) protocol(ctx context.Context, farmID uuid.UUID, v int) (FollowUpProtocol, error) {
	q := s.Client(ctx).FollowUpProtocol.Query().Where(followupprotocol.FarmID(farmID))
	if v > 0 {
		q.Where(followupprotocol.Version(v))
	}
	row, err := q.Order(ent.Desc(followupprotocol.FieldVersion)).First(ctx)
	switch {
	case ent.IsNotFound(err) && v > 0:
		return FollowUpProtocol{}, Invalid(FieldError{Field: "protocol_version", Message: fmt.Sprintf("version %d does not exist", v)})
	case ent.IsNotFound(err):
		return FollowUpProtocol{Steps: []schematype.ProtocolStep{}}, nil
	case err != nil:
		return FollowUpProtocol{}, err
	}
	return FollowUpProtocol{Version: row.Version, Steps: row.Steps}, nil
}

// PutFollowUpProtocol replaces the farm's steps with a new protocol version.
func (s *Service) PutFollowUpProtocol(ctx context.Context, farmID uuid.UUID, steps []schematype.ProtocolStep) (FollowUpProtocol, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords)
	if err != nil {
		return FollowUpProtocol{}, err
	}
	var fe fieldErrors
	if len(steps) > MaxProtocolSteps {
		fe.add("steps", "must have at most %d steps", MaxProtocolSteps)
	}
	for i, st := range steps {
		p := fmt.Sprintf("steps[%d]", i)
		validateName(&fe, p+".name", st.Name, 1, 200)
		if st.Sex != "" && st.Sex != evidence.SexMale && st.Sex != evidence.SexFemale {
			fe.add(p+".sex", "must be male or female, or left out for a step of the dam")
		}
		if st.OffsetDays < MinOffsetDays || st.OffsetDays > MaxOffsetDays {
			fe.add(p+".offset_days", "must be between %d and %d", MinOffsetDays, MaxOffsetDays)
		}
	}
	if err := fe.err(); err != nil {
		return FollowUpProtocol{}, err
	}
	if steps == nil {
		steps = []schematype.ProtocolStep{}
	}
	var out FollowUpProtocol
	err = s.inTx(ctx, func(ctx context.Context) error {
		cur, err := s.protocol(ctx, farmID, 0)
		if err != nil {
			return err
		}
		row, err := s.Client(ctx).FollowUpProtocol.Create().SetFarmID(farmID).SetVersion(cur.Version + 1).
			SetSteps(steps).SetCreatedBy(v.UserID).Save(ctx)
		if err != nil {
			return constraint(err, "the protocol was changed at the same time; try again")
		}
		out = FollowUpProtocol{Version: row.Version, Steps: row.Steps}
		return nil
	})
	return out, err
}

// CreateBirthPreview snapshots the evidence for a birth with the current settings and
// protocol versions and lists the tasks approval would create.
func (s *Service) CreateBirthPreview(ctx context.Context, farmID uuid.UUID, damID, birthDate string) (*ent.BirthPreview, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords, ScopeReadAnimals)
	if err != nil {
		return nil, err
	}
	ev, settingsVersion, err := s.review(ctx, farmID, damID, birthDate)
	if err != nil {
		return nil, err
	}
	proto, err := s.protocol(ctx, farmID, 0)
	if err != nil {
		return nil, err
	}
	// A calf's step (one with a sex) waits for the calving operation, which knows the calves.
	tasks := plannedTasks(proto.Steps, birthDate, false)
	return s.Client(ctx).BirthPreview.Create().SetFarmID(farmID).SetDamID(uuid.MustParse(strings.ToLower(damID))).
		SetBirthDate(birthDate).SetSettingsVersion(settingsVersion).SetProtocolVersion(proto.Version).
		SetEvidence(ev).SetTasks(tasks).SetCreatedBy(v.UserID).Save(ctx)
}

// BirthPreview returns one preview of the farm.
func (s *Service) BirthPreview(ctx context.Context, farmID, id uuid.UUID) (*ent.BirthPreview, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	p, err := s.Client(ctx).BirthPreview.Query().Where(birthpreview.FarmID(farmID), birthpreview.ID(id)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "preview", id)
	}
	if !p.Stale && p.ApprovedAt == nil {
		// A preview whose evidence changed since is answered stale (and stays so).
		changed, err := s.evidenceChanged(ctx, p)
		if err != nil {
			return nil, err
		}
		if changed {
			// By id and farm: ent's UpdateOneID names the id alone (docs/scaling.md).
			if err := s.Client(ctx).BirthPreview.Update().Where(birthpreview.ID(p.ID), birthpreview.FarmID(p.FarmID)).
				SetStale(true).Exec(ctx); err != nil {
				return nil, err
			}
			p.Stale = true
		}
	}
	return p, nil
}

// RecordFact records one birth_history fact as a record with one item, linked to the
// animals and groups the fact names. Its type is MOVEMENT for arrivals and departures and
// GENETIC otherwise; it is applied at the fact's date.
func (s *Service) RecordFact(ctx context.Context, farmID uuid.UUID, f evidence.Fact) (*ent.Record, error) {
	return s.RecordFactWith(ctx, farmID, f, FactOptions{})
}

// FactOptions are the record-level choices of RecordFactWith.
type FactOptions struct {
	// AcknowledgeWithdrawal lets a departure, sale or slaughter during a meat withdrawal
	// through (see RecordInput).
	AcknowledgeWithdrawal bool
}

// RecordFactWith is RecordFact with record-level options. A treatment is a HEALTH record
// applied at its date or date-time.
func (s *Service) RecordFactWith(ctx context.Context, farmID uuid.UUID, f evidence.Fact, opt FactOptions) (*ent.Record, error) {
	if errs := f.Validate(); len(errs) > 0 {
		return nil, invalidFromEvidence("", errs)
	}
	var animals, groups []uuid.UUID
	for _, id := range f.ReferencedAnimals() {
		animals = append(animals, uuid.MustParse(id))
	}
	for _, id := range f.ReferencedGroups() {
		groups = append(groups, uuid.MustParse(id))
	}
	typ := "GENETIC"
	switch f.Kind {
	case evidence.KindPurchase, evidence.KindMovementIn, evidence.KindMovementOut:
		typ = "MOVEMENT"
	case evidence.KindTreatment:
		typ = "HEALTH"
	}
	applied := s.nowUTC()
	if t, err := time.Parse(time.RFC3339, f.Date); err == nil {
		applied = t
	}
	for _, d := range []string{f.Date, f.StartDate} {
		if t, err := time.Parse(time.DateOnly, d); err == nil {
			applied = t
			break
		}
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	var fact map[string]any
	if err := json.Unmarshal(b, &fact); err != nil {
		return nil, err
	}
	name := "Birth history: " + strings.ReplaceAll(string(f.Kind), "_", " ")
	if f.Kind == evidence.KindTreatment {
		name = "Medicine book: treatment"
	}
	return s.CreateRecord(ctx, farmID, RecordInput{
		AnimalIDs: animals, GroupIDs: groups, Name: name, Type: typ, AppliedAt: &applied,
		AcknowledgeWithdrawal: opt.AcknowledgeWithdrawal,
		Items:                 []RecordItemInput{{Name: &name, Metadata: map[string]any{FactKey: fact}}},
	})
}

// evidenceChanged reports whether the evidence under a preview changed after it was made: a
// fact of the dam, of a candidate sire, or of a group either was ever a member of, recorded,
// voided or amended since (two statements). A preview whose evidence changed is stale, as
// one made before a settings change is.
func (s *Service) evidenceChanged(ctx context.Context, p *ent.BirthPreview) (bool, error) {
	ids := []uuid.UUID{p.DamID}
	for _, c := range p.Evidence.Sire.Candidates {
		if u, err := uuid.Parse(c.AnimalID); err == nil {
			ids = append(ids, u)
		}
	}
	ids = dedupe(ids)
	c := s.Client(ctx)
	groups, err := c.RecordItem.Query().Where(recorditem.FactKind(string(evidence.KindMembership)),
		recorditem.FactSubjectIn(ids...), itemsOfFarm(p.FarmID), recorditem.FactGroupNotNil()).
		Unique(true).Select(recorditem.FieldFactGroup).Strings(ctx)
	if err != nil {
		return false, err
	}
	about := []predicate.RecordItem{recorditem.FactSubjectIn(ids...), recorditem.FactDamIn(ids...)}
	if len(groups) > 0 {
		gs := make([]uuid.UUID, 0, len(groups))
		for _, g := range groups {
			if u, err := uuid.Parse(g); err == nil {
				gs = append(gs, u)
			}
		}
		about = append(about, recorditem.FactGroupIn(gs...))
	}
	t := p.CreatedAt
	return c.RecordItem.Query().Where(recorditem.FactKindNotNil(), recorditem.Or(about...),
		recorditem.Or(recorditem.CreatedAtGT(t), recorditem.UpdatedAtGT(t),
			itemsOfFarm(p.FarmID, record.UpdatedAtGT(t))),
		itemsOfFarm(p.FarmID)).Exist(IncludeInactive(ctx))
}
