package evidence

import (
	"sort"
)

// The bases of an expected calving date.
const (
	DueFromService   = "service"
	DueFromFoetalAge = "foetal_age"
	DueUnknown       = "unknown"
)

// DueEntry is one female that a pregnancy check found pregnant and that has not given birth
// since: when she is expected to, and from what. Expected dates are null (empty) when the
// farm's gestation is not configured or nothing dates the conception.
type DueEntry struct {
	AnimalID      string `json:"animal_id"`
	CheckRecordID string `json:"check_record_id"`
	CheckDate     string `json:"check_date"`
	Method        string `json:"method"`
	// Basis is service (the service that fits the check), foetal_age or unknown.
	Basis string `json:"basis"`
	// The fitting service, when Basis is service.
	ServiceKind     Kind   `json:"service_kind,omitempty"`
	ServiceDate     string `json:"service_date,omitempty"`
	ServiceRecordID string `json:"service_record_id,omitempty"`
	SireID          string `json:"sire_id,omitempty"`
	// ExpectedDate is the middle of [ExpectedFrom, ExpectedTo], the calving dates the
	// gestation range (the sire breed's, else the farm's) allows.
	ExpectedDate   string `json:"expected_date,omitempty"`
	ExpectedFrom   string `json:"expected_from,omitempty"`
	ExpectedTo     string `json:"expected_to,omitempty"`
	GestationDays  *Range `json:"gestation_days,omitempty"`
	GestationBreed string `json:"gestation_breed,omitempty"`
}

// Due lists the females whose newest pregnancy check is positive and who have no birth
// after it, ordered by expected date (those without one last), then by animal id. facts are
// the farm's pregnancy checks, services and births, and the sires' profiles (for their
// breed's gestation); settings may be nil.
//
// The service that fits is the dam's latest service on or before the check, after her last
// birth before it, dated inside the conception the foetal age gives when the check gives one
// (and no longer ago than the longest gestation when gestation is set). Without one, a
// foetal age dates conception: check date − foetal age. Expected calving: conception +
// gestation (min to max).
func Due(settings *Settings, facts []Fact) []DueEntry {
	var ps []*pfact
	for _, f := range facts {
		if p, errs := prepare(f); errs == nil {
			ps = append(ps, p)
		}
	}
	sortFacts(ps)
	if settings != nil && settings.Validate(settings.Species) != nil {
		settings = nil
	}
	checks := map[string]*pfact{}
	services := map[string][]*pfact{}
	births := map[string][]int{}
	breeds := map[string][]*pfact{}
	for _, p := range ps {
		switch p.Kind {
		case KindPregnancyCheck:
			checks[normID(p.AnimalID)] = p // history order: the newest wins
		case KindInsemination, KindHandMating, KindEmbryoTransfer:
			d := servedFemale(&p.Fact)
			services[d] = append(services[d], p)
		case KindBirth:
			births[p.DamID] = append(births[p.DamID], p.date)
		case KindProfile:
			breeds[p.AnimalID] = append(breeds[p.AnimalID], p)
		}
	}
	r := &reviewer{profiles: breeds}
	var out []DueEntry
	for dam, ck := range checks {
		if ck.Result != ResultPregnant {
			continue
		}
		last := minDay - 1 // her last birth on or before the check
		calved := false
		for _, b := range births[dam] {
			if b > ck.date {
				calved = true
			} else {
				last = max(last, b)
			}
		}
		if calved {
			continue
		}
		e := DueEntry{AnimalID: dam, CheckRecordID: ck.RecordID, CheckDate: ck.Date, Method: ck.Method, Basis: DueUnknown}
		conc, aged := interval{minDay, ck.date}, false
		switch {
		case ck.FoetalAgeDays != nil:
			conc, aged = interval{ck.date - *ck.FoetalAgeDays, ck.date - *ck.FoetalAgeDays}, true
		case ck.FoetalAgeMinDays != nil && ck.FoetalAgeMaxDays != nil:
			conc, aged = interval{ck.date - *ck.FoetalAgeMaxDays, ck.date - *ck.FoetalAgeMinDays}, true
		}
		var fit *pfact
		for _, sv := range services[dam] {
			if sv.date > ck.date || sv.date <= last {
				continue
			}
			if aged && (sv.date < conc.a || sv.date > conc.b) {
				continue
			}
			if settings != nil && settings.GestationDays != nil && !aged {
				g, _ := settings.gestationFor(r.profileOf(sv.SireID).breed)
				if ck.date-sv.date > g.Max {
					continue
				}
			}
			fit = sv // history order: the latest wins
		}
		var g Range
		gOK := settings != nil && settings.GestationDays != nil
		switch {
		case fit != nil:
			e.Basis, e.ServiceKind, e.ServiceDate, e.ServiceRecordID, e.SireID = DueFromService, fit.Kind, fit.Date, fit.RecordID, fit.SireID
			conc = interval{fit.date, fit.date}
			if gOK {
				g, e.GestationBreed = settings.gestationFor(r.profileOf(fit.SireID).breed)
			}
		case aged:
			e.Basis = DueFromFoetalAge
			if gOK {
				g = *settings.GestationDays
			}
		default:
			gOK = false
		}
		if gOK {
			from, to := conc.a+g.Min, conc.b+g.Max
			e.ExpectedFrom, e.ExpectedTo, e.ExpectedDate = formatDate(from), formatDate(to), formatDate(from+(to-from)/2)
			e.GestationDays = &Range{Min: g.Min, Max: g.Max}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.ExpectedDate == "") != (b.ExpectedDate == "") {
			return a.ExpectedDate != ""
		}
		if a.ExpectedDate != b.ExpectedDate {
			return a.ExpectedDate < b.ExpectedDate
		}
		return a.AnimalID < b.AnimalID
	})
	return out
}
