package evidence_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// The service and pregnancy fact kinds: their vocabulary (docs/birth-history.md's table) and
// the history rules they are held to. The vocabulary follows ICAR's ADE data dictionary
// (adewg/ICAR, reproInsemination, reproMating, reproEmbryo, reproPregnancyCheck with its
// method and result enumerations), spelt in this API's snake_case.
func TestServiceFactVocabulary(t *testing.T) {
	t.Parallel()
	dam, sire, donor := uid("COW"), uid("BULL"), uid("DONOR")
	cases := []struct {
		name, json string
		want       string // "" accepted, else "field: message part"
	}{
		{"Heat", `{"kind":"heat","animal_id":"` + dam + `","date":"2025-06-01"}`, ""},
		{"HeatNeedsDate", `{"kind":"heat","animal_id":"` + dam + `"}`, "birth_history.date: is required"},
		{"Insemination", `{"kind":"insemination","dam_id":"` + dam + `","sire_id":"` + sire + `","date":"2025-06-10","straw":"lot 44","technician":"J. Byrne"}`, ""},
		{"InseminationBlankStraw", `{"kind":"insemination","dam_id":"` + dam + `","sire_id":"` + sire + `","date":"2025-06-10","straw":" "}`, "birth_history.straw: must not be blank"},
		{"InseminationSameAnimal", `{"kind":"insemination","dam_id":"` + dam + `","sire_id":"` + dam + `","date":"2025-06-10"}`, "birth_history.sire_id: must differ from dam_id"},
		{"HandMatingNoStraw", `{"kind":"hand_mating","dam_id":"` + dam + `","sire_id":"` + sire + `","date":"2025-06-10","straw":"x"}`, "birth_history.straw: is not used by kind hand_mating"},
		{"EmbryoTransfer", `{"kind":"embryo_transfer","dam_id":"` + donor + `","sire_id":"` + sire + `","recipient_id":"` + dam + `","date":"2025-06-12","embryo":"IVF-31"}`, ""},
		{"EmbryoTransferNeedsRecipient", `{"kind":"embryo_transfer","dam_id":"` + donor + `","sire_id":"` + sire + `","date":"2025-06-12"}`, "birth_history.recipient_id: is required"},
		{"EmbryoTransferRecipientIsDonor", `{"kind":"embryo_transfer","dam_id":"` + donor + `","sire_id":"` + sire + `","recipient_id":"` + donor + `","date":"2025-06-12"}`, "birth_history.recipient_id: must differ from dam_id"},
		{"Scan", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"scan","result":"pregnant","foetal_age_days":50}`, ""},
		{"ScanRange", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"palpation","result":"pregnant","foetal_age_min_days":45,"foetal_age_max_days":55}`, ""},
		{"ScanBadMethod", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"ultrasound","result":"empty"}`, "birth_history.method: must be one of scan, palpation, blood"},
		{"ScanBadResult", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"blood","result":"qualified"}`, "birth_history.result: must be one of pregnant, empty, recheck"},
		{"ScanAgeWhenEmpty", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"scan","result":"empty","foetal_age_days":50}`, "birth_history.result: must be pregnant when a foetal age is given"},
		{"ScanBothAges", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"scan","result":"pregnant","foetal_age_days":50,"foetal_age_min_days":45,"foetal_age_max_days":55}`, "birth_history.foetal_age_days: must be left out"},
		{"ScanHalfRange", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"scan","result":"pregnant","foetal_age_min_days":45}`, "birth_history.foetal_age_max_days: is required"},
		{"ScanRangeBackwards", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"scan","result":"pregnant","foetal_age_min_days":55,"foetal_age_max_days":45}`, "birth_history.foetal_age_max_days: must not be less"},
		{"ScanAgeZero", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"scan","result":"pregnant","foetal_age_days":0}`, "birth_history.foetal_age_days: must be between 1 and 2000"},
		{"ScanAgeText", `{"kind":"pregnancy_check","animal_id":"` + dam + `","date":"2025-08-01","method":"scan","result":"pregnant","foetal_age_days":"50"}`, "birth_history.foetal_age_days: must be a whole number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, errs := evidence.ParseFact(json.RawMessage(c.json))
			var got []string
			for _, e := range errs {
				got = append(got, e.Field+": "+e.Message)
			}
			if c.want == "" {
				if len(errs) > 0 {
					t.Fatalf("refused: %v", got)
				}
				// The stored form parses again to the same fact.
				b, _ := json.Marshal(f)
				if g, errs := evidence.ParseFact(b); len(errs) > 0 || MustJSON(t, g) != MustJSON(t, f) {
					t.Fatalf("round trip: %s %v", b, errs)
				}
				return
			}
			if !strings.Contains(strings.Join(got, "\n"), c.want) {
				t.Fatalf("errors %v, want %q", got, c.want)
			}
		})
	}
}

func TestServiceHistoryRules(t *testing.T) {
	t.Parallel()
	ins := func(dam, sire, date string) evidence.Fact {
		return evidence.Fact{Kind: evidence.KindInsemination, DamID: uid(dam), SireID: uid(sire), Date: date}
	}
	mating := func(dam, sire, date string) evidence.Fact {
		return evidence.Fact{Kind: evidence.KindHandMating, DamID: uid(dam), SireID: uid(sire), Date: date}
	}
	cases := []struct {
		name   string
		stored []evidence.Fact
		news   []evidence.Fact
		limits evidence.HistoryLimits
		want   string
	}{
		{name: "DamMustBeFemale", stored: []evidence.Fact{hf("p", profile("COW", "male", "2020-01-01"))},
			news: []evidence.Fact{ins("COW", "BULL", "2025-06-01")}, want: "0 dam_id: COW is recorded as male"},
		{name: "SireMustBeMale", stored: []evidence.Fact{hf("p", profile("BULL", "female", "2020-01-01"))},
			news: []evidence.Fact{mating("COW", "BULL", "2025-06-01")}, want: "0 sire_id: BULL is recorded as female"},
		{name: "RecipientMustBeFemale", stored: []evidence.Fact{hf("p", profile("HEIFER", "male", "2020-01-01"))},
			news: []evidence.Fact{{Kind: evidence.KindEmbryoTransfer, DamID: uid("COW"), SireID: uid("BULL"), RecipientID: uid("HEIFER"), Date: "2025-06-01"}},
			want: "0 recipient_id: HEIFER is recorded as male"},
		{name: "SireTooYoung", stored: []evidence.Fact{hf("p", profile("BULL", "male", "2025-01-01"))},
			news: []evidence.Fact{mating("COW", "BULL", "2025-06-01")}, limits: evidence.HistoryLimits{MinimumBreedingAgeMale: intp(365)},
			want: "0 sire_id: BULL was 151 days old on the hand mating on 2025-06-01"},
		{name: "DamServedBeforeBirth", stored: []evidence.Fact{hf("p", profile("COW", "female", "2025-01-01"))},
			news: []evidence.Fact{ins("COW", "BULL", "2024-06-01")}, want: "0 dam_id: an insemination as the served female on 2024-06-01"},
		{name: "DeadBullsSemen", stored: []evidence.Fact{hf("p", profile("BULL", "male", "2010-01-01")), hf("d", dated(evidence.KindDeath, "BULL", "2015-01-01"))},
			news: []evidence.Fact{ins("COW", "BULL", "2025-06-01")}},
		{name: "DeadBullCannotMate", stored: []evidence.Fact{hf("p", profile("BULL", "male", "2010-01-01")), hf("d", dated(evidence.KindDeath, "BULL", "2015-01-01"))},
			news: []evidence.Fact{mating("COW", "BULL", "2025-06-01")}, want: "0 sire_id: a hand mating as sire on 2025-06-01"},
		{name: "HeatAfterSale", stored: []evidence.Fact{hf("s", dated(evidence.KindSale, "COW", "2025-01-01"))},
			news: []evidence.Fact{dated(evidence.KindHeat, "COW", "2025-06-01")}, want: "0 date: its heat on 2025-06-01"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := evidence.CheckHistory(c.news, c.stored, c.limits, names)
			var got []string
			for _, v := range vs {
				got = append(got, v.Field+": "+v.Message)
				got[len(got)-1] = string(rune('0'+v.Index)) + " " + got[len(got)-1]
			}
			if c.want == "" {
				if len(vs) > 0 {
					t.Fatalf("refused: %v", got)
				}
				return
			}
			if !strings.Contains(strings.Join(got, "\n"), c.want) {
				t.Fatalf("violations %v, want %q", got, c.want)
			}
		})
	}
}
