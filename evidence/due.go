package evidence

import (
	"sort"
)

// The bases of an expected calving date.
const (
	DueFromService = "service"
	// DueFromExposure: no service fact fits, but the days a male shared a group with her (his
	// and her dated memberships) or an exposure fact put him with her date conception.
	DueFromExposure  = "exposure"
	DueFromFoetalAge = "foetal_age"
	// DueDeclared: the check states the expected calving date (expected_calving_date), as
	// for a female bought in calf; it is taken as given.
	DueDeclared = "declared"
	DueUnknown  = "unknown"
)

// DueEntry is one female that a pregnancy check found pregnant and that has not given birth
// since: when she is expected to, and from what. Expected dates are null (empty) when the
// farm's gestation is not configured or nothing dates the conception.
type DueEntry struct {
	AnimalID      string `json:"animal_id"`
	CheckRecordID string `json:"check_record_id"`
	CheckDate     string `json:"check_date"`
	Method        string `json:"method"`
	// Basis is declared (the check's expected_calving_date), service (the service that fits
	// the check), exposure (a male's days with her), foetal_age or unknown.
	Basis string `json:"basis"`
	// The fitting service, when Basis is service.
	ServiceKind     Kind   `json:"service_kind,omitempty"`
	ServiceDate     string `json:"service_date,omitempty"`
	ServiceRecordID string `json:"service_record_id,omitempty"`
	// SireID is the fitting service's sire, or the one male of an exposure basis.
	SireID string `json:"sire_id,omitempty"`
	// When Basis is exposure: the days conception can have happened on (the males' days with
	// her that fit the check, from the first to the last), the males, and the membership and
	// exposure records that placed them with her.
	ServiceFrom      string   `json:"service_from,omitempty"`
	ServiceTo        string   `json:"service_to,omitempty"`
	SireIDs          []string `json:"sire_ids,omitempty"`
	ServiceRecordIDs []string `json:"service_record_ids,omitempty"`
	// ExpectedDate is the middle of [ExpectedFrom, ExpectedTo], the calving dates the
	// gestation range (the sire breed's, else the farm's) allows.
	ExpectedDate   string `json:"expected_date,omitempty"`
	ExpectedFrom   string `json:"expected_from,omitempty"`
	ExpectedTo     string `json:"expected_to,omitempty"`
	GestationDays  *Range `json:"gestation_days,omitempty"`
	GestationBreed string `json:"gestation_breed,omitempty"`
}

// Due is DueAsOf with every fact, whatever its date.
func Due(settings *Settings, facts []Fact) []DueEntry { return DueAsOf(settings, facts, "") }

// DueAsOf lists the females whose newest pregnancy check is positive and who have no birth
// after it, ordered by expected date (those without one last), then by animal id, as of
// asOf (YYYY-MM-DD; "" for no limit): facts dated after asOf do not count, and a female that
// left the farm (moved out, sold or died) on or before asOf and has not come back is not
// listed. facts are the farm's pregnancy checks, services, births, arrivals and departures,
// memberships, membership ends, exposures and profiles (sex, and the sires' breed for their
// gestation); settings may be nil.
//
// A check that states an expected_calving_date gives that day (basis declared): the word of
// the vet, or of the seller of a female bought in calf, for this pregnancy. Otherwise the
// service that fits is the dam's latest service on or before the check, after her last
// birth before it, dated inside the conception the foetal age gives when the check gives one
// (and no longer ago than the longest gestation when gestation is set). Without one, the
// days a male (his profile says male) shared a group with her (both memberships dated, by
// the review's rules: an open membership ends the day before the next one, at a
// membership_end, or when the animal leaves the farm) or an exposure put a sire with her
// (directly, or her group while she was in it), cut to after her last birth, to the check's
// date and the longest gestation before it, and to the foetal age's conception, date
// conception: basis exposure. Else a foetal age dates conception: check date − foetal age.
// Expected calving: conception + gestation (min to max).
func DueAsOf(settings *Settings, facts []Fact, asOf string) []DueEntry {
	var ps []*pfact
	for _, f := range facts {
		if p, errs := prepare(f); errs == nil && (asOf == "" || p.key <= asOf) {
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
	sex := map[string]string{}
	gone := map[string]bool{}
	dead := map[string]bool{}
	members, memberEnds := map[string][]*pfact{}, map[string][]*pfact{}
	outs := map[string][]int{}
	var exposures []*pfact
	castrated := map[string]int{}
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
			if p.Sex != "" {
				sex[p.AnimalID] = p.Sex
			}
		case KindPurchase, KindMovementIn:
			gone[p.AnimalID] = dead[p.AnimalID]
		case KindMovementOut, KindSale, KindDeath:
			gone[p.AnimalID] = true
			dead[p.AnimalID] = dead[p.AnimalID] || p.Kind == KindDeath
			outs[p.AnimalID] = append(outs[p.AnimalID], p.date)
		case KindMembership:
			members[p.AnimalID] = append(members[p.AnimalID], p)
		case KindMembershipEnd:
			memberEnds[p.AnimalID] = append(memberEnds[p.AnimalID], p)
		case KindExposure:
			exposures = append(exposures, p)
		case KindCastration:
			if _, ok := castrated[p.AnimalID]; !ok {
				castrated[p.AnimalID] = p.date
			}
		}
	}
	// The males' spans by group, and the exposures by dam and by group.
	males := map[string][]string{}
	spans := map[string]map[string][]membership{}
	spansOf := func(id string) map[string][]membership {
		sp, ok := spans[id]
		if !ok {
			sp = membershipSpans(members[id], memberEnds[id], outs[id])
			if c, ok := castrated[id]; ok {
				// A castrated male serves no more from the day of his castration.
				for g, ms := range sp {
					var kept []membership
					for _, m := range ms {
						if m.span.b = min(m.span.b, c-1); m.span.a <= m.span.b {
							kept = append(kept, m)
						}
					}
					sp[g] = kept
				}
			}
			spans[id] = sp
		}
		return sp
	}
	for id := range members {
		if sex[id] == SexMale {
			for g := range spansOf(id) {
				males[g] = append(males[g], id)
			}
		}
	}
	for _, ids := range males {
		sort.Strings(ids)
	}
	byDam, byGroup := map[string][]*pfact{}, map[string][]*pfact{}
	for _, e := range exposures {
		if c, ok := castrated[e.SireID]; ok && c <= e.start {
			continue // a steer serves no female
		}
		if e.DamID != "" {
			byDam[e.DamID] = append(byDam[e.DamID], e)
		} else {
			byGroup[e.GroupID] = append(byGroup[e.GroupID], e)
		}
	}
	// exposed is an exposure's days, up to the day before its sire's castration.
	exposed := func(x *pfact) interval {
		iv := interval{x.start, x.end}
		if c, ok := castrated[x.SireID]; ok {
			iv.b = min(iv.b, c-1)
		}
		return iv
	}
	r := &reviewer{profiles: breeds}
	var out []DueEntry
	for dam, ck := range checks {
		if ck.Result != ResultPregnant || gone[dam] {
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
		if ck.ExpectedCalvingDate != "" {
			e.Basis = DueDeclared
			e.ExpectedDate, e.ExpectedFrom, e.ExpectedTo = ck.ExpectedCalvingDate, ck.ExpectedCalvingDate, ck.ExpectedCalvingDate
			out = append(out, e)
			continue
		}
		conc, aged := interval{minDay, ck.date}, false
		switch {
		case ck.FoetalAgeDays != nil:
			conc, aged = interval{ck.date - *ck.FoetalAgeDays, ck.date - *ck.FoetalAgeDays}, true
		case ck.FoetalAgeMinDays != nil && ck.FoetalAgeMaxDays != nil:
			conc, aged = interval{ck.date - *ck.FoetalAgeMaxDays, ck.date - *ck.FoetalAgeMinDays}, true
		}
		gOK := settings != nil && settings.GestationDays != nil
		var fit *pfact
		for _, sv := range services[dam] {
			if sv.date > ck.date || sv.date <= last {
				continue
			}
			if aged && (sv.date < conc.a || sv.date > conc.b) {
				continue
			}
			if gOK && !aged {
				g, _ := settings.gestationFor(r.profileOf(sv.SireID).breed)
				if ck.date-sv.date > g.Max {
					continue
				}
			}
			fit = sv // history order: the latest wins
		}
		var g Range
		switch {
		case fit != nil:
			e.Basis, e.ServiceKind, e.ServiceDate, e.ServiceRecordID, e.SireID = DueFromService, fit.Kind, fit.Date, fit.RecordID, fit.SireID
			conc = interval{fit.date, fit.date}
			if gOK {
				g, e.GestationBreed = settings.gestationFor(r.profileOf(fit.SireID).breed)
			}
		default:
			// The days males were with her that fit the check.
			fits := interval{max(last+1, conc.a), min(ck.date, conc.b)}
			var win *interval
			var sires, records []string
			var gs []Range
			var breed string
			add := func(sire string, iv interval, recs ...string) {
				if gOK {
					sg, b := settings.gestationFor(r.profileOf(sire).breed)
					iv.a = max(iv.a, ck.date-sg.Max)
					if iv.a > iv.b {
						return
					}
					gs, breed = append(gs, sg), b
				}
				if win == nil {
					win = &interval{iv.a, iv.b}
				} else {
					win.a, win.b = min(win.a, iv.a), max(win.b, iv.b)
				}
				sires = append(sires, sire)
				records = append(records, recs...)
			}
			own := spansOf(dam)
			groups := make([]string, 0, len(own))
			for gid := range own {
				groups = append(groups, gid)
			}
			sort.Strings(groups)
			for _, gid := range groups {
				for _, her := range own[gid] {
					for _, m := range males[gid] {
						if m == dam {
							continue
						}
						for _, his := range spansOf(m)[gid] {
							if iv, ok := intersect(her.span, his.span); ok {
								if iv, ok := intersect(iv, fits); ok {
									add(m, iv, her.fact.RecordID, his.fact.RecordID)
								}
							}
						}
					}
					for _, x := range byGroup[gid] {
						if iv, ok := intersect(her.span, exposed(x)); ok {
							if iv, ok := intersect(iv, fits); ok {
								add(x.SireID, iv, her.fact.RecordID, x.RecordID)
							}
						}
					}
				}
			}
			for _, x := range byDam[dam] {
				if iv, ok := intersect(exposed(x), fits); ok {
					add(x.SireID, iv, x.RecordID)
				}
			}
			switch {
			case win != nil:
				e.Basis = DueFromExposure
				conc = *win
				e.ServiceFrom, e.ServiceTo = formatDate(win.a), formatDate(win.b)
				e.SireIDs, e.ServiceRecordIDs = compactStrings(sortedCopy(sires)), compactStrings(sortedCopy(records))
				if len(e.SireIDs) == 1 {
					e.SireID = e.SireIDs[0]
				}
				if gOK {
					g = gs[0]
					for _, x := range gs[1:] {
						g.Min, g.Max = min(g.Min, x.Min), max(g.Max, x.Max)
					}
					if len(e.SireIDs) == 1 {
						e.GestationBreed = breed
					}
				}
			case aged:
				e.Basis = DueFromFoetalAge
				if gOK {
					g = *settings.GestationDays
				}
			default:
				gOK = false
			}
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

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
