package evidence

import (
	"sort"
	"strings"
)

// Input is one question put to Review: what do the farm's records say about
// the birth of DamID's offspring on BirthDate?
type Input struct {
	// Settings are the farm's birth-history settings; nil when the farm
	// has not configured any.
	Settings *Settings
	// DamID is the uuid of the dam.
	DamID string
	// BirthDate is the birth date, YYYY-MM-DD.
	BirthDate string
	// Facts are the active birth_history facts of the farm, in any order.
	// Review orders them itself by (date, record_item_id), where a fact's
	// date is its date, else its start_date, else its birth_date, so that
	// backdated records take their place in history.
	Facts []Fact
}

// Validate checks the two query parameters of the evidence operation, so
// that the transport can answer 400 before any fact is loaded. Review itself
// tolerates invalid values and reports them as unresolved.
func (in Input) Validate() []FieldError {
	var errs []FieldError
	if !isUUID(in.DamID) {
		errs = append(errs, FieldError{Field: "dam_id", Message: "must be a UUID"})
	}
	if !isDate(in.BirthDate) {
		errs = append(errs, FieldError{Field: "birth_date", Message: "must be a calendar date in the form YYYY-MM-DD"})
	}
	return errs
}

// frame is what the review derives from the question before it reads any
// fact. Review and Scope share it so that they can never disagree about the
// conception window.
type frame struct {
	dam         string // lower-cased; empty when DamID is not a uuid
	birth       int
	birthOK     bool
	settings    *Settings // valid settings, or nil
	settingsBad []FieldError
	ws, we      int // the conception window, when windowOK
	sws, swe    int // the widest conception window of any sire's breed, holding ws..we
	windowOK    bool
	clamped     bool // the window was cut at the first supported date
}

func frameOf(in Input) frame {
	var fr frame
	if isUUID(in.DamID) {
		fr.dam = normID(in.DamID)
	}
	fr.birth, fr.birthOK = parseDate(in.BirthDate)
	if in.Settings != nil {
		// The review has no farm at hand, so the settings are checked
		// against their own species; the write path checked the farm's.
		if errs := in.Settings.Validate(in.Settings.Species); errs != nil {
			fr.settingsBad = errs
		} else {
			fr.settings = in.Settings
		}
	}
	if fr.settings != nil && fr.settings.GestationDays != nil && fr.birthOK {
		g := fr.settings.GestationDays
		fr.ws, fr.we = fr.birth-g.Max, fr.birth-g.Min
		lo, hi := g.Min, g.Max
		for _, b := range fr.settings.GestationDaysByBreed {
			lo, hi = min(lo, b.Min), max(hi, b.Max)
		}
		fr.sws, fr.swe = max(fr.birth-hi, minDay), fr.birth-lo
		if fr.ws < minDay {
			fr.ws, fr.clamped = minDay, true
		}
		fr.windowOK = fr.we >= minDay
	}
	return fr
}

// pfact is a valid fact with its dates read once.
type pfact struct {
	Fact
	key        string // the sort date: date, else start_date, else birth_date
	date       int    // date, when the kind has one
	start, end int    // start_date and end_date; end is openEnd when absent
	birth      int    // birth_date, when hasBirth
	hasBirth   bool
}

// checkFact validates a fact as Review receives it: provenance and metadata.
func checkFact(f *Fact) []FieldError {
	var errs []FieldError
	if !isUUID(f.RecordID) {
		errs = append(errs, FieldError{Field: "record_id", Message: "must be a UUID"})
	}
	if !isUUID(f.RecordItemID) {
		errs = append(errs, FieldError{Field: "record_item_id", Message: "must be a UUID"})
	}
	return append(errs, f.Validate()...)
}

// prepare validates f and reads its dates. Ids are lower-cased; the
// caller's slice is never modified.
func prepare(f Fact) (*pfact, []FieldError) {
	if errs := checkFact(&f); errs != nil {
		return nil, errs
	}
	f.RecordID, f.RecordItemID = normID(f.RecordID), normID(f.RecordItemID)
	f.AnimalID, f.SireID, f.DamID, f.GroupID = normID(f.AnimalID), normID(f.SireID), normID(f.DamID), normID(f.GroupID)
	p := &pfact{Fact: f, key: sortDate(&f), end: openEnd}
	p.date, _ = parseDate(f.Date)
	p.start, _ = parseDate(f.StartDate)
	if f.EndDate != "" {
		p.end, _ = parseDate(f.EndDate)
	}
	p.birth, p.hasBirth = parseDate(f.BirthDate)
	return p, nil
}

func sortDate(f *Fact) string {
	switch {
	case f.Date != "":
		return f.Date
	case f.StartDate != "":
		return f.StartDate
	default:
		return f.BirthDate
	}
}

// sortFacts orders facts by (date, record_item_id) as DESIGN.md requires.
// The remaining fields only break ties between facts that share an item id
// (a caller mistake), so that even then the order, and with it the result,
// does not depend on the order of the input.
func sortFacts(facts []*pfact) {
	sort.Slice(facts, func(i, j int) bool { return compareFacts(facts[i], facts[j]) < 0 })
}

func compareFacts(a, b *pfact) int {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := strings.Compare(a.RecordItemID, b.RecordItemID); c != 0 {
		return c
	}
	if c := strings.Compare(a.RecordID, b.RecordID); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
		return c
	}
	for fl := field(0); fl < fOffspring; fl++ {
		if c := strings.Compare(a.str(fl), b.str(fl)); c != 0 {
			return c
		}
	}
	return strings.Compare(strings.Join(a.OffspringIDs, ","), strings.Join(b.OffspringIDs, ","))
}
