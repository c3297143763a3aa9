package herdbook

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdbook/herdbook/evidence"
)

// What animals.csv carries of an animal's history beyond its profile of the day, so that an
// export imports into another farm with its history (issue 19.7, docs/csv.md): every weight,
// the day each group membership in force began, and how and when the animal arrived.

// csvWeight is one weight of the weights cell, date:kg.
type csvWeight struct {
	date string
	kg   json.Number
}

// csvHistory is an animal's history in the columns weights, group_since and arrival.
type csvHistory struct {
	weights     []csvWeight       // oldest first
	since       map[string]string // group id → first day of the membership in force
	arrival     string            // purchase or movement_in: the first arrival
	arrivalDate string
}

// csvHistories reads the histories of animals from their facts, as of a day.
func csvHistories(facts []evidence.Fact, asOf string) map[string]*csvHistory {
	out := map[string]*csvHistory{}
	get := func(id string) *csvHistory {
		id = strings.ToLower(id)
		h := out[id]
		if h == nil {
			h = &csvHistory{since: map[string]string{}}
			out[id] = h
		}
		return h
	}
	for _, f := range facts {
		if f.AnimalID == "" {
			continue
		}
		switch f.Kind {
		case evidence.KindWeight, evidence.KindWeaning: // a weaning weighs the calf, as the register counts it
			if f.Date != "" && f.Date <= asOf && f.KG != "" {
				h := get(f.AnimalID)
				h.weights = append(h.weights, csvWeight{date: f.Date, kg: f.KG})
			}
		case evidence.KindMembership:
			if f.StartDate != "" && f.StartDate <= asOf && f.GroupID != "" {
				h, g := get(f.AnimalID), strings.ToLower(f.GroupID)
				if f.StartDate > h.since[g] {
					h.since[g] = f.StartDate
				}
			}
		case evidence.KindPurchase, evidence.KindMovementIn:
			if f.Date != "" && f.Date <= asOf {
				if h := get(f.AnimalID); h.arrivalDate == "" || f.Date < h.arrivalDate {
					h.arrival, h.arrivalDate = string(f.Kind), f.Date
				}
			}
		}
	}
	for _, h := range out {
		slices.SortStableFunc(h.weights, func(a, b csvWeight) int { return strings.Compare(a.date, b.date) })
	}
	return out
}

// weightsCell writes the weights as date:kg, separated by ';'.
func (h *csvHistory) weightsCell() string {
	if h == nil {
		return ""
	}
	out := make([]string, len(h.weights))
	for i, w := range h.weights {
		out[i] = w.date + ":" + string(w.kg)
	}
	return strings.Join(out, listSeparator)
}

// splitList splits a cell at ';', trimming each part; an empty cell gives none.
func splitList(cell string) []string {
	if strings.TrimSpace(cell) == "" {
		return nil
	}
	parts := strings.Split(cell, listSeparator)
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func isDay(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil && len(s) == 10
}

// readHistory reads the identifiers and weights cells, and checks them with group_since and
// arrival.
func (r *importRow) readHistory(p *importProblems, identifiers, weights string) {
	for _, v := range splitList(identifiers) {
		scheme, value, ok := strings.Cut(v, ":")
		switch {
		case !ok || value == "":
			p.add(r.row, "identifiers", "%q must be scheme:value", v)
		case !slices.Contains(evidence.Schemes, scheme):
			p.add(r.row, "identifiers", "%q: the scheme must be one of %s", v, strings.Join(evidence.Schemes, ", "))
		case textProblem(value, false) != "":
			p.add(r.row, "identifiers", "%s", textProblem(value, false))
		default:
			r.identifiers = append(r.identifiers, evidence.Identifier{Scheme: scheme, Value: value})
		}
	}
	for _, v := range splitList(weights) {
		day, kg, ok := strings.Cut(v, ":")
		n, err := strconv.ParseFloat(kg, 64)
		switch {
		case !ok || !isDay(day):
			p.add(r.row, "weights", "%q must be YYYY-MM-DD:kg", v)
		case err != nil || n <= 0 || n > 10000:
			p.add(r.row, "weights", "%q: the weight must be a number of kilograms above 0 and at most 10000", v)
		default:
			r.weights = append(r.weights, csvWeight{date: day, kg: json.Number(strconv.FormatFloat(n, 'f', -1, 64))})
		}
	}
	for _, d := range r.groupSince {
		if d != "" && !isDay(d) {
			p.add(r.row, "group_since", "%q must be a calendar date in the form YYYY-MM-DD", d)
		}
	}
	switch {
	case r.arrival == "" && r.arrivalDate != "":
		p.add(r.row, "arrival", "is required with arrival_date: purchase or movement_in")
	case r.arrival == "":
	case r.arrival != string(evidence.KindPurchase) && r.arrival != string(evidence.KindMovementIn):
		p.add(r.row, "arrival", "must be purchase or movement_in")
	case !isDay(r.arrivalDate):
		p.add(r.row, "arrival_date", "is required with arrival, a calendar date in the form YYYY-MM-DD")
	}
}

// historyFacts are the facts the row's identifiers, weights and arrival add to what the
// animal's history already holds: an export imports again unchanged.
func (r *importRow) historyFacts(pr evidence.Profile, h *csvHistory, in AnimalInput) []evidence.Fact {
	var out []evidence.Fact
	id := r.id.String()
	from := r.birthDate
	if from == "" && pr.BirthDate != nil {
		from = *pr.BirthDate
	}
	for _, ident := range r.identifiers {
		if slices.Contains(pr.Identifiers, ident) || (ident.Scheme == evidence.SchemeEID && in.EID != nil && *in.EID == ident.Value) {
			continue
		}
		if ident.Scheme == evidence.SchemeEID {
			if v, ok := evidence.NormalizeEID(ident.Value); ok {
				ident.Value = v
			}
		}
		out = append(out, evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: id, Scheme: ident.Scheme, Value: ident.Value, StartDate: from})
	}
	for _, w := range r.weights {
		if h != nil && slices.Contains(h.weights, w) {
			continue
		}
		out = append(out, evidence.Fact{Kind: evidence.KindWeight, AnimalID: id, Date: w.date, KG: w.kg})
	}
	if r.arrival != "" && (h == nil || h.arrival != r.arrival || h.arrivalDate != r.arrivalDate) {
		out = append(out, evidence.Fact{Kind: evidence.Kind(r.arrival), AnimalID: id, Date: r.arrivalDate})
	}
	return out
}
