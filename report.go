package herdbook

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
)

// Herd reports (docs/breeding.md): calving percentage, calving spread, scan results, 205-day
// weights by sire and by dam age, and daily gain by group. Each report reads the farm's
// facts of the kinds it needs in one statement (after the permission check and the
// settings), whatever the size of the farm, and computes in memory.

// The reports.
const (
	ReportCalving       = "calving"
	ReportCalvingSpread = "calving-spread"
	ReportScans         = "scans"
	ReportWeaning       = "weaning"
	ReportGain          = "gain"
)

// Reports lists the report names.
var Reports = []string{ReportCalving, ReportCalvingSpread, ReportScans, ReportWeaning, ReportGain}

// SpreadPeriodDays is the length of a calving-spread period: one oestrous cycle of the cow,
// the period BIF and the beef extension services count calving distribution in.
const SpreadPeriodDays = 21

// ReportQuery is the period of a report; ExposureFrom and ExposureTo are the breeding season
// of the calving report.
type ReportQuery struct {
	From, To                 string
	ExposureFrom, ExposureTo string
}

// CalvingReport is the calving percentage: calves born alive in the period to the females
// exposed in the breeding season, over those females. Calvings of females the season did not
// expose here (bought in calf, or an exposure not recorded) are counted apart, in NotExposed,
// and never in the percentage.
type CalvingReport struct {
	From              string   `json:"from"`
	To                string   `json:"to"`
	ExposureFrom      string   `json:"exposure_from"`
	ExposureTo        string   `json:"exposure_to"`
	FemalesExposed    int      `json:"females_exposed"`
	Calvings          int      `json:"calvings"`
	CalvesBorn        int      `json:"calves_born"`
	CalvesBornAlive   int      `json:"calves_born_alive"`
	Stillborn         int      `json:"stillborn"`
	CalvingPercentage *float64 `json:"calving_percentage"`
	// NotExposed are the calvings of the period by dams the season did not expose.
	NotExposed UnexposedCalvings `json:"not_exposed"`
}

// UnexposedCalvings counts the calvings of dams that no fact exposed in the breeding season:
// BoughtIn of those dams arrived (a purchase or movement_in) after the season began and on
// or before the calving, so they were most likely bought in calf; the others had no exposure
// recorded.
type UnexposedCalvings struct {
	Calvings        int `json:"calvings"`
	CalvesBorn      int `json:"calves_born"`
	CalvesBornAlive int `json:"calves_born_alive"`
	Stillborn       int `json:"stillborn"`
	BoughtIn        int `json:"bought_in"`
}

// SpreadPeriod is one 21-day period of the calving spread.
type SpreadPeriod struct {
	Period               int     `json:"period"`
	StartDate            string  `json:"start_date"`
	EndDate              string  `json:"end_date"`
	Calvings             int     `json:"calvings"`
	Percentage           float64 `json:"percentage"`
	CumulativePercentage float64 `json:"cumulative_percentage"`
}

// SpreadReport is the calving spread in 21-day periods from the first calving of the period.
type SpreadReport struct {
	From         string         `json:"from"`
	To           string         `json:"to"`
	FirstCalving *string        `json:"first_calving"`
	Calvings     int            `json:"calvings"`
	Periods      []SpreadPeriod `json:"periods"`
}

// ScanReport counts the pregnancy checks of the period, each animal by its last check.
type ScanReport struct {
	From           string         `json:"from"`
	To             string         `json:"to"`
	Checks         int            `json:"checks"`
	AnimalsChecked int            `json:"animals_checked"`
	Pregnant       int            `json:"pregnant"`
	Empty          int            `json:"empty"`
	Recheck        int            `json:"recheck"`
	ByMethod       map[string]int `json:"by_method"`
	PregnancyRate  *float64       `json:"pregnancy_rate"`
}

// WeightGroup is a mean of 205-day adjusted weaning weights.
type WeightGroup struct {
	SireID         *uuid.UUID `json:"sire_id,omitempty"`
	DamAgeYears    *int       `json:"dam_age_years,omitempty"`
	Calves         int        `json:"calves"`
	MeanAdjustedKG float64    `json:"mean_adjusted_kg"`
	MinAdjustedKG  float64    `json:"min_adjusted_kg"`
	MaxAdjustedKG  float64    `json:"max_adjusted_kg"`
}

// WeaningReport is the 205-day adjusted weaning weights of the calves weaned in the period,
// by sire and by the dam's age in whole years at calving.
type WeaningReport struct {
	From      string        `json:"from"`
	To        string        `json:"to"`
	Calves    int           `json:"calves"`
	Missing   int           `json:"missing"`
	BySire    []WeightGroup `json:"by_sire"`
	ByDamAge  []WeightGroup `json:"by_dam_age"`
	UnknownBy struct {
		Sire   int `json:"sire"`
		DamAge int `json:"dam_age"`
	} `json:"unknown"`
}

// GroupGain is the mean daily gain of a group's members over a period, each member's over
// her days in the group (gainReport).
type GroupGain struct {
	GroupID         uuid.UUID `json:"group_id"`
	Animals         int       `json:"animals"`
	MeanDailyGainKG float64   `json:"mean_daily_gain_kg"`
}

// GainReport is the daily gain by group: each member's gain between her weighings inside her
// stays in the group and in the period (gainReport).
type GainReport struct {
	From   string      `json:"from"`
	To     string      `json:"to"`
	Groups []GroupGain `json:"groups"`
}

// Report answers one herd report: a *CalvingReport, *SpreadReport, *ScanReport,
// *WeaningReport or *GainReport.
func (s *Service) Report(ctx context.Context, farmID uuid.UUID, name string, q ReportQuery) (any, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords, ScopeReadAnimals); err != nil {
		return nil, err
	}
	if err := CheckText("report", name); err != nil {
		return nil, err
	}
	if err := checkTextIn(q); err != nil {
		return nil, err
	}
	var fe fieldErrors
	if !slices.Contains(Reports, name) {
		return nil, Errorf(ENOTFOUND, "no report %q: the reports are calving, calving-spread, scans, weaning and gain", name)
	}
	for _, p := range []struct{ name, v string }{{"from", q.From}, {"to", q.To}} {
		if p.v == "" {
			fe.add(p.name, "is required: a report covers a period")
		}
	}
	checkPeriod(&fe, q.From, q.To)
	if name == ReportCalving {
		for _, p := range []struct{ name, v string }{{"exposure_from", q.ExposureFrom}, {"exposure_to", q.ExposureTo}} {
			if p.v == "" {
				fe.add(p.name, "is required: the calving percentage divides by the females exposed in the breeding season")
			}
		}
		var pe fieldErrors
		checkPeriod(&pe, q.ExposureFrom, q.ExposureTo)
		for _, e := range pe {
			fe.add("exposure_"+e.Field, "%s", e.Message)
		}
	} else if q.ExposureFrom != "" || q.ExposureTo != "" {
		fe.add("exposure_from", "is only taken by the calving report")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	// A report reads the farm's facts of its kinds over every year (a calving's dam may have
	// run with the bull a season before; a gain needs the weights around the period), half a
	// second for the five on 10,000 animals: each answer is kept by the farm's change counter
	// (derived.go), keyed by the report and its period, and by the farm's age-of-dam
	// adjustments for the weaning report (settings move no counter).
	key := fmt.Sprintf("report %s %s %s %s %s", name, q.From, q.To, q.ExposureFrom, q.ExposureTo)
	var st FarmSettings
	if name == ReportWeaning {
		var err error
		if st, err = s.settings(ctx, farmID); err != nil {
			return nil, err
		}
		key += fmt.Sprintf(" %v", st.WeaningAgeOfDam)
	}
	switch name {
	case ReportWeaning:
		return s.weaningReport(ctx, farmID, key, q, st)
	case ReportGain:
		return s.gainReport(ctx, farmID, key, q)
	}
	out, _, err := keptUnless(ctx, s, farmID, key, reportKinds[name], func() (any, error) { return s.report(ctx, farmID, name, q, st) })
	return out, err
}

// The weaning and gain reports read every weighing of the farm, so nearly every write at the
// crush is of their kinds: each is kept with the animals' parts it sums (a calf's line, an
// animal's gain in each group), and a write makes those of the animals it touched again
// (keptPatched, patch.go), then sums them all. TestKeptAnswersMatchDerived holds the patched
// reports to the ones derived whole.

// keptWeaning is the weaning report with the calves' lines it sums.
type keptWeaning struct {
	report *WeaningReport
	rows   map[string]weaningRow
}

// weaningReport is the weaning report kept under key. A calf's line reads its own facts and
// its dam's: a write makes the lines of the calves it touched and of the touched dams'
// calves again.
func (s *Service) weaningReport(ctx context.Context, farmID uuid.UUID, key string, q ReportQuery, st FarmSettings) (*WeaningReport, error) {
	kinds := reportKinds[ReportWeaning]
	k, _, err := keptPatched(ctx, s, s.derived, farmID, key, kinds, func() (*keptWeaning, error) {
		facts, err := s.farmFacts(ctx, farmID, kinds...)
		if err != nil {
			return nil, err
		}
		rows := weaningRows(facts, nil, q, st)
		return &keptWeaning{weaningReportOf(q, rows), rows}, nil
	}, func(old *keptWeaning, touched []uuid.UUID, _ int64) (*keptWeaning, error) {
		if len(touched) == 0 {
			return old, nil
		}
		of := idSet(touched)
		for id, row := range old.rows {
			if row.dam != "" && of[row.dam] {
				of[id] = true
			}
		}
		facts, err := s.animalFactsOf(ctx, farmID, uuidsOf(of), kinds)
		if err != nil {
			return nil, err
		}
		// The dams of those calves that are not among them: their facts in one more statement.
		dams := map[string]bool{}
		byAnimal := factsByAnimal(facts)
		for id := range of {
			if p := evidence.ProfileOf(id, "9999-12-31", byAnimal[id]); p.DamID != nil && !of[*p.DamID] {
				dams[*p.DamID] = true
			}
		}
		if len(dams) > 0 {
			more, err := s.animalFactsOf(ctx, farmID, uuidsOf(dams), kinds)
			if err != nil {
				return nil, err
			}
			facts = appendNew(facts, more)
		}
		rows := make(map[string]weaningRow, len(old.rows))
		for id, row := range old.rows {
			if !of[id] {
				rows[id] = row
			}
		}
		maps.Copy(rows, weaningRows(facts, of, q, st))
		return &keptWeaning{weaningReportOf(q, rows), rows}, nil
	})
	if err != nil {
		return nil, err
	}
	return k.report, nil
}

// keptGain is the gain report with the animals' gains it sums.
type keptGain struct {
	report *GainReport
	gains  map[string]map[string]gainSum
}

// gainReport is the gain report kept under key. An animal's gains read its own facts alone:
// a write makes those of the animals it touched again.
func (s *Service) gainReport(ctx context.Context, farmID uuid.UUID, key string, q ReportQuery) (*GainReport, error) {
	kinds := reportKinds[ReportGain]
	k, _, err := keptPatched(ctx, s, s.derived, farmID, key, kinds, func() (*keptGain, error) {
		facts, err := s.farmFacts(ctx, farmID, kinds...)
		if err != nil {
			return nil, err
		}
		gains := gainSums(facts, q)
		return &keptGain{gainReportOf(q, gains), gains}, nil
	}, func(old *keptGain, touched []uuid.UUID, _ int64) (*keptGain, error) {
		if len(touched) == 0 {
			return old, nil
		}
		facts, err := s.animalFactsOf(ctx, farmID, touched, kinds)
		if err != nil {
			return nil, err
		}
		mine := idSet(touched)
		facts = slices.DeleteFunc(facts, func(f evidence.Fact) bool { return !mine[f.AnimalID] })
		gains := make(map[string]map[string]gainSum, len(old.gains))
		for g, m := range old.gains {
			kept := make(map[string]gainSum, len(m))
			for a, v := range m {
				if !mine[a] {
					kept[a] = v
				}
			}
			gains[g] = kept
		}
		for g, m := range gainSums(facts, q) {
			if gains[g] == nil {
				gains[g] = map[string]gainSum{}
			}
			maps.Copy(gains[g], m)
		}
		return &keptGain{gainReportOf(q, gains), gains}, nil
	})
	if err != nil {
		return nil, err
	}
	return k.report, nil
}

// factsByAnimal are the facts by each animal they name, in any role.
func factsByAnimal(facts []evidence.Fact) map[string][]evidence.Fact {
	out := map[string][]evidence.Fact{}
	for _, f := range facts {
		for _, id := range f.ReferencedAnimals() {
			out[id] = append(out[id], f)
		}
	}
	return out
}

// appendNew appends to facts those of more whose item is not among them.
func appendNew(facts, more []evidence.Fact) []evidence.Fact {
	seen := make(map[string]bool, len(facts))
	for _, f := range facts {
		seen[f.RecordItemID] = true
	}
	for _, f := range more {
		if !seen[f.RecordItemID] {
			facts = append(facts, f)
		}
	}
	return facts
}

// reportKinds are the fact kinds each report reads.
var reportKinds = map[string][]string{
	ReportCalving: kindNames(evidence.KindProfile, evidence.KindBirth, evidence.KindDeath, evidence.KindExposure,
		evidence.KindMembership, evidence.KindMembershipEnd, evidence.KindInsemination, evidence.KindHandMating, evidence.KindEmbryoTransfer,
		evidence.KindPurchase, evidence.KindMovementIn, evidence.KindMovementOut, evidence.KindSale),
	ReportCalvingSpread: kindNames(evidence.KindBirth),
	ReportScans:         kindNames(evidence.KindPregnancyCheck),
	ReportWeaning: kindNames(evidence.KindProfile, evidence.KindBirth, evidence.KindWeight,
		evidence.KindWeaning, evidence.KindDNAParentage),
	ReportGain: kindNames(evidence.KindWeight, evidence.KindWeaning, evidence.KindMembership, evidence.KindMembershipEnd,
		evidence.KindMovementOut, evidence.KindSale, evidence.KindDeath),
}

func kindNames(kinds ...evidence.Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// report derives the report name over q; st are the farm's settings for the weaning report.
func (s *Service) report(ctx context.Context, farmID uuid.UUID, name string, q ReportQuery, st FarmSettings) (any, error) {
	facts, err := s.farmFacts(ctx, farmID, reportKinds[name]...)
	if err != nil {
		return nil, err
	}
	switch name {
	case ReportCalving:
		return calvingReport(facts, q), nil
	case ReportCalvingSpread:
		return spreadReport(facts, q), nil
	case ReportScans:
		return scanReport(facts, q), nil
	case ReportWeaning:
		return weaningReport(facts, q, st), nil
	default:
		return gainReport(facts, q), nil
	}
}

// farmFacts loads the farm's active facts of kinds in one statement, through the
// (fact_kind, fact_date) index.
func (s *Service) farmFacts(ctx context.Context, farmID uuid.UUID, kinds ...string) ([]evidence.Fact, error) {
	items, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKindIn(kinds...), itemsOfFarm(farmID, liveRecord(ctx)), liveItem(ctx)).
		Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata).All(ctx)
	if err != nil {
		return nil, err
	}
	return factsOf(items), nil
}

func in(day, from, to string) bool { return day >= from && day <= to }

func pct(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	v := math.Round(float64(n)/float64(d)*10000) / 100
	return &v
}

// birthsOf are the farm's births (a dam and a date once, whatever the number of birth
// facts that record it), each with its calves.
type birthOf struct {
	dam, date string
	calves    []string
}

func birthsOf(facts []evidence.Fact) []*birthOf {
	by := map[[2]string]*birthOf{}
	var out []*birthOf
	for _, f := range facts {
		if f.Kind != evidence.KindBirth {
			continue
		}
		k := [2]string{f.DamID, f.Date}
		b := by[k]
		if b == nil {
			b = &birthOf{dam: f.DamID, date: f.Date}
			by[k] = b
			out = append(out, b)
		}
		for _, o := range f.OffspringIDs {
			if !slices.Contains(b.calves, o) {
				b.calves = append(b.calves, o)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].date != out[j].date {
			return out[i].date < out[j].date
		}
		return out[i].dam < out[j].dam
	})
	return out
}

// span is a dated stay [start, end] ("" end: open) of an animal in a group.
type span struct{ animal, group, start, end string }

// memberships are the farm's membership spans by the register's rules
// (evidence.MembershipSpans: an open membership ends the day before the animal's next
// membership, the day before a membership_end of its group, and every membership the day
// before the animal left the farm), so a report places an animal in a group on exactly the
// days the animal's page does. facts must hold the membership, membership_end and departure
// (movement_out, sale, death) facts of the animals.
func memberships(facts []evidence.Fact) []span {
	byAnimal := map[string][]evidence.Fact{}
	var ids []string // the animals with a membership, whatever the order of their facts
	member := map[string]bool{}
	for _, f := range facts {
		switch f.Kind {
		case evidence.KindMembership, evidence.KindMembershipEnd, evidence.KindMovementOut, evidence.KindSale, evidence.KindDeath:
			if f.Kind == evidence.KindMembership && !member[f.AnimalID] {
				member[f.AnimalID] = true
				ids = append(ids, f.AnimalID)
			}
			byAnimal[f.AnimalID] = append(byAnimal[f.AnimalID], f)
		}
	}
	sort.Strings(ids)
	var out []span
	for _, id := range ids {
		for _, g := range evidence.MembershipSpans(id, "9999-12-31", byAnimal[id]) {
			out = append(out, span{id, g.GroupID, g.StartDate, g.EndDate})
		}
	}
	return out
}

func addDays(day string, n int) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

// overlap is the overlap of [a1, a2] and [b1, b2] ("" ends are open).
func overlap(a1, a2, b1, b2 string) (string, string, bool) {
	s := max(a1, b1)
	e := a2
	if e == "" || (b2 != "" && b2 < e) {
		e = b2
	}
	return s, e, e == "" || s <= e
}

func calvingReport(facts []evidence.Fact, q ReportQuery) *CalvingReport {
	out := &CalvingReport{From: q.From, To: q.To, ExposureFrom: q.ExposureFrom, ExposureTo: q.ExposureTo}
	sex := map[string]string{}
	for _, f := range facts {
		if f.Kind == evidence.KindProfile && f.Sex != "" {
			sex[f.AnimalID] = f.Sex
		}
	}
	exposed := map[string]bool{}
	mark := func(id string) {
		if id != "" && sex[id] != evidence.SexMale {
			exposed[id] = true
		}
	}
	spans := memberships(facts)
	byGroup := map[string][]span{}
	for _, sp := range spans {
		byGroup[sp.group] = append(byGroup[sp.group], sp)
	}
	for _, f := range facts {
		switch f.Kind {
		case evidence.KindExposure:
			s, e, ok := overlap(f.StartDate, f.EndDate, q.ExposureFrom, q.ExposureTo)
			if !ok {
				continue
			}
			if f.DamID != "" {
				mark(f.DamID)
			}
			for _, sp := range byGroup[f.GroupID] {
				if f.GroupID != "" {
					if _, _, ok := overlap(sp.start, sp.end, s, e); ok {
						mark(sp.animal)
					}
				}
			}
		case evidence.KindInsemination, evidence.KindHandMating:
			if in(f.Date, q.ExposureFrom, q.ExposureTo) {
				mark(f.DamID)
			}
		case evidence.KindEmbryoTransfer:
			if in(f.Date, q.ExposureFrom, q.ExposureTo) {
				mark(f.RecipientID)
			}
		}
	}
	// A bull's membership of a group is exposure of every female member for the days they
	// were both in it (issue 21.2).
	for _, group := range byGroup {
		for _, bull := range group {
			if sex[bull.animal] != evidence.SexMale {
				continue
			}
			s, e, ok := overlap(bull.start, bull.end, q.ExposureFrom, q.ExposureTo)
			if !ok {
				continue
			}
			for _, cow := range group {
				if cow.animal != bull.animal {
					if _, _, ok := overlap(cow.start, cow.end, s, e); ok {
						mark(cow.animal)
					}
				}
			}
		}
	}
	out.FemalesExposed = len(exposed)
	stillborn := map[string]string{}
	arrivals := map[string][]string{}
	for _, f := range facts {
		switch f.Kind {
		case evidence.KindDeath:
			stillborn[f.AnimalID] = f.Date
		case evidence.KindPurchase, evidence.KindMovementIn:
			arrivals[f.AnimalID] = append(arrivals[f.AnimalID], f.Date)
		}
	}
	for _, b := range birthsOf(facts) {
		if !in(b.date, q.From, q.To) {
			continue
		}
		calvings, born, alive, dead := &out.Calvings, &out.CalvesBorn, &out.CalvesBornAlive, &out.Stillborn
		if !exposed[b.dam] {
			n := &out.NotExposed
			calvings, born, alive, dead = &n.Calvings, &n.CalvesBorn, &n.CalvesBornAlive, &n.Stillborn
			if slices.ContainsFunc(arrivals[b.dam], func(d string) bool { return d > q.ExposureFrom && d <= b.date }) {
				n.BoughtIn++
			}
		}
		*calvings++
		if len(b.calves) == 0 {
			*born++
			*alive++ // a birth that names no calf counts as one live calf
			continue
		}
		for _, c := range b.calves {
			*born++
			if d, ok := stillborn[c]; ok && d == b.date {
				*dead++
			} else {
				*alive++
			}
		}
	}
	out.CalvingPercentage = pct(out.CalvesBornAlive, out.FemalesExposed)
	return out
}

func spreadReport(facts []evidence.Fact, q ReportQuery) *SpreadReport {
	out := &SpreadReport{From: q.From, To: q.To, Periods: []SpreadPeriod{}}
	var days []string
	for _, b := range birthsOf(facts) {
		if in(b.date, q.From, q.To) {
			days = append(days, b.date)
		}
	}
	if len(days) == 0 {
		return out
	}
	first := days[0]
	out.FirstCalving, out.Calvings = &first, len(days)
	counts := map[int]int{}
	last := 0
	for _, d := range days {
		p := daysBetween(first, d) / SpreadPeriodDays
		counts[p]++
		last = max(last, p)
	}
	cum := 0
	for p := 0; p <= last; p++ {
		cum += counts[p]
		out.Periods = append(out.Periods, SpreadPeriod{Period: p + 1, StartDate: addDays(first, p*SpreadPeriodDays),
			EndDate: addDays(first, (p+1)*SpreadPeriodDays-1), Calvings: counts[p],
			Percentage: *pct(counts[p], len(days)), CumulativePercentage: *pct(cum, len(days))})
	}
	return out
}

func scanReport(facts []evidence.Fact, q ReportQuery) *ScanReport {
	out := &ScanReport{From: q.From, To: q.To, ByMethod: map[string]int{}}
	last := map[string]evidence.Fact{}
	for _, f := range facts {
		if f.Kind != evidence.KindPregnancyCheck || !in(f.Date, q.From, q.To) {
			continue
		}
		out.Checks++
		out.ByMethod[f.Method]++
		// The last check of the animal in the period; on one date, the order of the results
		// (pregnant, recheck, empty) decides, never the order of recording.
		if p, ok := last[f.AnimalID]; !ok || f.Date > p.Date || (f.Date == p.Date && f.Result < p.Result) {
			last[f.AnimalID] = f
		}
	}
	out.AnimalsChecked = len(last)
	for _, f := range last {
		switch f.Result {
		case "pregnant":
			out.Pregnant++
		case "empty":
			out.Empty++
		default:
			out.Recheck++
		}
	}
	out.PregnancyRate = pct(out.Pregnant, out.Pregnant+out.Empty)
	return out
}

func weaningReport(facts []evidence.Fact, q ReportQuery, st FarmSettings) *WeaningReport {
	return weaningReportOf(q, weaningRows(facts, nil, q, st))
}

// weaningRow is a calf's line in the weaning report: weaned in the period, with its adjusted
// weaning weight, its sire and its dam's age in years, or missing (no adjusted weight in the
// period). dam is the dam whose facts the line read ("" when none is known).
type weaningRow struct {
	missing bool
	kg      float64
	sire    *string
	damAge  *int
	dam     string
}

// weaningRows are the lines of the calves weaned in the period among of (every calf when
// nil); facts must hold the facts of the weaning report's kinds that name those calves and
// their dams.
func weaningRows(facts []evidence.Fact, of map[string]bool, q ReportQuery, st FarmSettings) map[string]weaningRow {
	byAnimal := factsByAnimal(facts)
	var weaned []string
	for _, f := range facts {
		if f.Kind == evidence.KindWeaning && in(f.Date, q.From, q.To) && (of == nil || of[f.AnimalID]) && !slices.Contains(weaned, f.AnimalID) {
			weaned = append(weaned, f.AnimalID)
		}
	}
	rows := make(map[string]weaningRow, len(weaned))
	for _, id := range weaned {
		own := byAnimal[id]
		p := evidence.ProfileOf(id, "9999-12-31", own)
		var row weaningRow
		if p.DamID != nil {
			row.dam = *p.DamID
			own = append(slices.Clone(own), byAnimal[*p.DamID]...)
		}
		g := growthOf(uuid.MustParse(id), own, st.WeaningAgeOfDam)
		w := g.AdjustedWeaningWeight
		if w == nil || !in(w.WeaningDate, q.From, q.To) {
			row.missing = true
			rows[id] = row
			continue
		}
		row.kg, row.sire = w.AdjustedKG, p.SireID
		if w.AgeOfDamDays != nil {
			y := int(float64(*w.AgeOfDamDays) / 365.25)
			row.damAge = &y
		}
		rows[id] = row
	}
	return rows
}

// weaningReportOf is the weaning report of the calves' lines: by sire and by dam's age, each
// group's weights taken in the calves' order, so that the same lines give the same means.
func weaningReportOf(q ReportQuery, rows map[string]weaningRow) *WeaningReport {
	out := &WeaningReport{From: q.From, To: q.To, BySire: []WeightGroup{}, ByDamAge: []WeightGroup{}}
	type acc struct {
		n             int
		sum, min, max float64
	}
	sires, ages := map[string]*acc{}, map[int]*acc{}
	add := func(a *acc, v float64) {
		if a.n == 0 || v < a.min {
			a.min = v
		}
		if a.n == 0 || v > a.max {
			a.max = v
		}
		a.n++
		a.sum += v
	}
	for _, id := range slices.Sorted(maps.Keys(rows)) {
		row := rows[id]
		if row.missing {
			out.Missing++
			continue
		}
		out.Calves++
		if row.sire != nil {
			if sires[*row.sire] == nil {
				sires[*row.sire] = &acc{}
			}
			add(sires[*row.sire], row.kg)
		} else {
			out.UnknownBy.Sire++
		}
		if row.damAge != nil {
			if ages[*row.damAge] == nil {
				ages[*row.damAge] = &acc{}
			}
			add(ages[*row.damAge], row.kg)
		} else {
			out.UnknownBy.DamAge++
		}
	}
	group := func(a *acc) WeightGroup {
		return WeightGroup{Calves: a.n, MeanAdjustedKG: round3(a.sum / float64(a.n)), MinAdjustedKG: a.min, MaxAdjustedKG: a.max}
	}
	for id, a := range sires {
		g := group(a)
		if u, err := uuid.Parse(id); err == nil {
			g.SireID = &u
		}
		out.BySire = append(out.BySire, g)
	}
	sort.Slice(out.BySire, func(i, j int) bool { return out.BySire[i].SireID.String() < out.BySire[j].SireID.String() })
	for y, a := range ages {
		g := group(a)
		g.DamAgeYears = &y
		out.ByDamAge = append(out.ByDamAge, g)
	}
	sort.Slice(out.ByDamAge, func(i, j int) bool { return *out.ByDamAge[i].DamAgeYears < *out.ByDamAge[j].DamAgeYears })
	return out
}

// gainReport is the daily gain by group. Each stay of an animal in a group (a membership
// span) is cut to the period; the gain of a stay runs from the animal's first to its last
// weighing date inside it, where the day it left the group (the day after the stay's last
// day) counts as inside: a weighing on the day of a move is its weight on leaving one group
// and on joining the next. An animal's daily gain in a group is its kilograms gained over its
// days between weighings, summed over its stays there; stays with fewer than two weighing
// dates give nothing, so no gain made outside the group is credited to it. Nothing is
// interpolated.
func gainReport(facts []evidence.Fact, q ReportQuery) *GainReport {
	return gainReportOf(q, gainSums(facts, q))
}

// gainSum is an animal's gain in a group over its stays there in the period.
type gainSum struct {
	kg   float64
	days int
}

// gainSums are the gains of the animals whose facts (of the gain report's kinds) are given, by
// group and animal.
func gainSums(facts []evidence.Fact, q ReportQuery) map[string]map[string]gainSum {
	points := map[string][]WeightPoint{}
	for _, f := range facts {
		if (f.Kind == evidence.KindWeight || f.Kind == evidence.KindWeaning) && in(f.Date, q.From, q.To) {
			var kg float64
			if v, err := f.KG.Float64(); err == nil {
				kg = v
			}
			points[f.AnimalID] = append(points[f.AnimalID], WeightPoint{Date: f.Date, KG: kg})
		}
	}
	days := map[string][]dayWeight{}
	for id, ps := range points {
		sort.Slice(ps, func(i, j int) bool {
			return ps[i].Date < ps[j].Date || (ps[i].Date == ps[j].Date && ps[i].KG < ps[j].KG)
		})
		days[id] = byDate(ps)
	}
	gains := map[string]map[string]gainSum{} // group → animal → gain over its stays
	for _, sp := range memberships(facts) {
		ws := days[sp.animal]
		if len(ws) < 2 {
			continue
		}
		last := "9999-12-31"
		if sp.end != "" {
			last = addDays(sp.end, 1) // the day it left
		}
		s, e, ok := overlap(sp.start, last, q.From, q.To)
		if !ok {
			continue
		}
		var first, final *dayWeight
		for i := range ws {
			if in(ws[i].date, s, e) {
				if first == nil {
					first = &ws[i]
				}
				final = &ws[i]
			}
		}
		if first == nil || first.date == final.date {
			continue
		}
		if gains[sp.group] == nil {
			gains[sp.group] = map[string]gainSum{}
		}
		a := gains[sp.group][sp.animal]
		a.kg += final.kg - first.kg
		a.days += daysBetween(first.date, final.date)
		gains[sp.group][sp.animal] = a
	}
	return gains
}

// gainReportOf is the gain report of the animals' gains: each group's mean of its animals' daily
// gains, taken in the animals' order so that the same gains give the same mean.
func gainReportOf(q ReportQuery, gains map[string]map[string]gainSum) *GainReport {
	out := &GainReport{From: q.From, To: q.To, Groups: []GroupGain{}}
	for g, m := range gains {
		gid, err := uuid.Parse(g)
		if err != nil || len(m) == 0 {
			continue
		}
		total := 0.0
		for _, id := range slices.Sorted(maps.Keys(m)) {
			total += m[id].kg / float64(m[id].days)
		}
		out.Groups = append(out.Groups, GroupGain{GroupID: gid, Animals: len(m), MeanDailyGainKG: round3(total / float64(len(m)))})
	}
	sort.Slice(out.Groups, func(i, j int) bool { return out.Groups[i].GroupID.String() < out.Groups[j].GroupID.String() })
	return out
}

// ReportTable answers a report as a table for CSV: one row per period, group or summary.
func (s *Service) ReportTable(ctx context.Context, farmID uuid.UUID, name string, q ReportQuery) (*Table, error) {
	rep, err := s.Report(ctx, farmID, name, q)
	if err != nil {
		return nil, err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	fp := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f(*v)
	}
	i := strconv.Itoa
	var header []string
	var rows [][]string
	switch r := rep.(type) {
	case *CalvingReport:
		header = []string{"from", "to", "exposure_from", "exposure_to", "females_exposed", "calvings", "calves_born", "calves_born_alive", "stillborn", "calving_percentage",
			"not_exposed_calvings", "not_exposed_calves_born", "not_exposed_calves_born_alive", "not_exposed_stillborn", "not_exposed_bought_in"}
		n := r.NotExposed
		rows = [][]string{{r.From, r.To, r.ExposureFrom, r.ExposureTo, i(r.FemalesExposed), i(r.Calvings), i(r.CalvesBorn), i(r.CalvesBornAlive), i(r.Stillborn), fp(r.CalvingPercentage),
			i(n.Calvings), i(n.CalvesBorn), i(n.CalvesBornAlive), i(n.Stillborn), i(n.BoughtIn)}}
	case *SpreadReport:
		header = []string{"period", "start_date", "end_date", "calvings", "percentage", "cumulative_percentage"}
		for _, p := range r.Periods {
			rows = append(rows, []string{i(p.Period), p.StartDate, p.EndDate, i(p.Calvings), f(p.Percentage), f(p.CumulativePercentage)})
		}
	case *ScanReport:
		header = []string{"from", "to", "checks", "animals_checked", "pregnant", "empty", "recheck", "pregnancy_rate"}
		rows = [][]string{{r.From, r.To, i(r.Checks), i(r.AnimalsChecked), i(r.Pregnant), i(r.Empty), i(r.Recheck), fp(r.PregnancyRate)}}
	case *WeaningReport:
		header = []string{"by", "sire_id", "dam_age_years", "calves", "mean_adjusted_kg", "min_adjusted_kg", "max_adjusted_kg"}
		for _, g := range r.BySire {
			rows = append(rows, []string{"sire", g.SireID.String(), "", i(g.Calves), f(g.MeanAdjustedKG), f(g.MinAdjustedKG), f(g.MaxAdjustedKG)})
		}
		for _, g := range r.ByDamAge {
			rows = append(rows, []string{"dam_age", "", i(*g.DamAgeYears), i(g.Calves), f(g.MeanAdjustedKG), f(g.MinAdjustedKG), f(g.MaxAdjustedKG)})
		}
	case *GainReport:
		header = []string{"group_id", "animals", "mean_daily_gain_kg"}
		for _, g := range r.Groups {
			rows = append(rows, []string{g.GroupID.String(), i(g.Animals), f(g.MeanDailyGainKG)})
		}
	}
	return &Table{Header: header, Rows: func(fn func(row []string) error) error {
		for _, row := range rows {
			if err := fn(row); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}
