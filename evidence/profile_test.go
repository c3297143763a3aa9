package evidence_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

func TestNormalizeEID(t *testing.T) {
	hex, ok := evidence.EIDHex("982000123456789")
	if !ok {
		t.Fatal("EIDHex refused a valid EID")
	}
	for _, in := range []string{"982000123456789", "982 000123456789", " 982000123456789 ", hex, strings.ToLower(hex)} {
		got, ok := evidence.NormalizeEID(in)
		if !ok || got != "982000123456789" {
			t.Errorf("NormalizeEID(%q) = %q, %v; want 982000123456789", in, got, ok)
		}
	}
	// A known FDX-B reading: animal flag set, country 999, national number 1.
	if got, ok := evidence.NormalizeEID("8000F9C000000001"); !ok || got != "999000000000001" {
		t.Errorf("NormalizeEID(8000F9C000000001) = %q, %v", got, ok)
	}
	for _, in := range []string{"", "98200012345678", "98 2000123456789", "982-000123456789",
		"98200012345678x", "ZZZZZZZZZZZZZZZZ", "FFFFFFFFFFFFFFFF", "982 00012345678 "} {
		if got, ok := evidence.NormalizeEID(in); ok {
			t.Errorf("NormalizeEID(%q) = %q, want refused", in, got)
		}
	}
}

func TestParseNewFactKinds(t *testing.T) {
	a, b := uid("a"), uid("b")
	ok := []struct {
		raw  string
		want evidence.Fact
	}{
		{`{"kind":"identifier","animal_id":"` + a + `","scheme":"eid","value":"982 000123456789","start_date":"2025-01-01"}`,
			evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: a, Scheme: "eid", Value: "982000123456789", StartDate: "2025-01-01"}},
		{`{"kind":"identifier","animal_id":"` + a + `","scheme":"visual","value":" Y12 ","start_date":"2025-01-01","end_date":"2025-02-01"}`,
			evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: a, Scheme: "visual", Value: "Y12", StartDate: "2025-01-01", EndDate: "2025-02-01"}},
		{`{"kind":"death","animal_id":"` + a + `","date":"2025-01-01","cause":"bloat"}`,
			evidence.Fact{Kind: evidence.KindDeath, AnimalID: a, Date: "2025-01-01", Cause: "bloat"}},
		{`{"kind":"sale","animal_id":"` + a + `","date":"2025-01-01"}`,
			evidence.Fact{Kind: evidence.KindSale, AnimalID: a, Date: "2025-01-01"}},
		{`{"kind":"weight","animal_id":"` + a + `","date":"2025-01-01","kg":412.50}`,
			evidence.Fact{Kind: evidence.KindWeight, AnimalID: a, Date: "2025-01-01", KG: "412.5"}},
		{`{"kind":"dna_parentage","offspring_id":"` + a + `","parent_id":"` + b + `","relation":"sire","result":"excluded","lab":"GeneLab","date":"2025-01-01"}`,
			evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: a, ParentID: b, Relation: "sire", Result: "excluded", Lab: "GeneLab", Date: "2025-01-01"}},
		{`{"kind":"profile","animal_id":"` + a + `","breed":"Angus","date":"2025-01-01"}`,
			evidence.Fact{Kind: evidence.KindProfile, AnimalID: a, Breed: "Angus", Date: "2025-01-01"}},
	}
	for _, c := range ok {
		got, errs := evidence.ParseFact(json.RawMessage(c.raw))
		if errs != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseFact(%s) = %+v, %v; want %+v", c.raw, got, errs, c.want)
		}
	}
	bad := []struct{ raw, field string }{
		{`{"kind":"identifier","animal_id":"` + a + `","scheme":"eid","value":"12345","start_date":"2025-01-01"}`, "birth_history.value"},
		{`{"kind":"identifier","animal_id":"` + a + `","scheme":"chip","value":"1","start_date":"2025-01-01"}`, "birth_history.scheme"},
		{`{"kind":"identifier","animal_id":"` + a + `","scheme":"visual","value":"1"}`, "birth_history.start_date"},
		{`{"kind":"weight","animal_id":"` + a + `","date":"2025-01-01","kg":"400"}`, "birth_history.kg"},
		{`{"kind":"weight","animal_id":"` + a + `","date":"2025-01-01","kg":-1}`, "birth_history.kg"},
		{`{"kind":"weight","animal_id":"` + a + `","date":"2025-01-01","kg":1e400}`, "birth_history.kg"},
		{`{"kind":"weight","animal_id":"` + a + `","date":"2025-01-01"}`, "birth_history.kg"},
		{`{"kind":"dna_parentage","offspring_id":"` + a + `","parent_id":"` + a + `","relation":"sire","result":"qualified","date":"2025-01-01"}`, "birth_history.parent_id"},
		{`{"kind":"dna_parentage","offspring_id":"` + a + `","parent_id":"` + b + `","relation":"uncle","result":"qualified","date":"2025-01-01"}`, "birth_history.relation"},
		{`{"kind":"dna_parentage","offspring_id":"` + a + `","parent_id":"` + b + `","relation":"dam","result":"maybe","date":"2025-01-01"}`, "birth_history.result"},
		{`{"kind":"death","animal_id":"` + a + `","date":"2025-01-01","cause":"   "}`, "birth_history.cause"},
		{`{"kind":"sale","animal_id":"` + a + `","date":"2025-01-01","buyer":"` + strings.Repeat("x", 201) + `"}`, "birth_history.buyer"},
		{`{"kind":"sale","animal_id":"` + a + `","date":"2025-01-01","kg":3}`, "birth_history.kg"},
	}
	for _, c := range bad {
		_, errs := evidence.ParseFact(json.RawMessage(c.raw))
		found := false
		for _, e := range errs {
			found = found || e.Field == c.field
		}
		if !found {
			t.Errorf("ParseFact(%s) errors %v, want one on %s", c.raw, errs, c.field)
		}
	}
}

func fact(label string, f evidence.Fact) evidence.Fact { return withIDs(label, f) }

func TestProfileOf(t *testing.T) {
	calf, dam, sire, other, g1, g2 := uid("calf"), uid("dam"), uid("sire"), uid("other"), uid("g1"), uid("g2")
	facts := []evidence.Fact{
		fact("1", evidence.Fact{Kind: evidence.KindBirth, DamID: dam, SireID: sire, Date: "2024-03-01", OffspringIDs: []string{calf}}),
		fact("2", evidence.Fact{Kind: evidence.KindProfile, AnimalID: calf, Sex: "male", Breed: "Angus", Date: "2024-03-01"}),
		fact("3", evidence.Fact{Kind: evidence.KindMembership, AnimalID: calf, GroupID: g1, StartDate: "2024-03-01"}),
		fact("4", evidence.Fact{Kind: evidence.KindMembership, AnimalID: calf, GroupID: g2, StartDate: "2024-09-01"}),
		fact("5", evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: calf, Scheme: "eid", Value: "982000123456789", StartDate: "2024-03-05"}),
		fact("6", evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: calf, Scheme: "visual", Value: "Y1", StartDate: "2024-03-05", EndDate: "2024-06-30"}),
		fact("7", evidence.Fact{Kind: evidence.KindWeight, AnimalID: calf, Date: "2024-03-01", KG: "40"}),
		fact("8", evidence.Fact{Kind: evidence.KindWeight, AnimalID: calf, Date: "2024-04-10", KG: "80"}),
		fact("9", evidence.Fact{Kind: evidence.KindCastration, AnimalID: calf, Date: "2024-05-01"}),
		fact("10", evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: calf, ParentID: sire, Relation: "sire", Result: "excluded", Date: "2024-06-01"}),
		fact("11", evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: calf, ParentID: other, Relation: "sire", Result: "qualified", Date: "2024-07-01"}),
		fact("12", evidence.Fact{Kind: evidence.KindSale, AnimalID: calf, Date: "2025-01-10", Buyer: "Smith"}),
		fact("13", evidence.Fact{Kind: evidence.KindMovementIn, AnimalID: calf, Date: "2025-02-01"}),
		// Facts about other animals never leak in.
		fact("14", evidence.Fact{Kind: evidence.KindProfile, AnimalID: dam, Sex: "female"}),
	}
	s := func(v string) *string { return &v }
	b := func(v bool) *bool { return &v }
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		asOf string
		want evidence.Profile
	}{
		// Before its birth the calf is not yet on the farm (issue 19: the register of a past
		// date counted calves born later).
		{"2024-02-01", evidence.Profile{AsOf: "2024-02-01", Status: "not_yet", GroupIDs: []string{}, Identifiers: []evidence.Identifier{}}},
		{"2024-03-01", evidence.Profile{AsOf: "2024-03-01", Sex: s("male"), BirthDate: s("2024-03-01"), Breed: s("Angus"),
			DamID: s(dam), SireID: s(sire), Intact: b(true), Status: "on_farm", StatusDate: s("2024-03-01"),
			GroupIDs: []string{g1}, Identifiers: []evidence.Identifier{}, WeightKG: f(40), WeighedOn: s("2024-03-01")}},
		{"2024-05-01", evidence.Profile{AsOf: "2024-05-01", Sex: s("male"), BirthDate: s("2024-03-01"), Breed: s("Angus"),
			DamID: s(dam), SireID: s(sire), Intact: b(false), Status: "on_farm", StatusDate: s("2024-03-01"),
			GroupIDs: []string{g1}, Identifiers: []evidence.Identifier{{"eid", "982000123456789"}, {"visual", "Y1"}},
			WeightKG: f(80), WeighedOn: s("2024-04-10"), ADGKG: f(1)}},
		{"2024-06-15", evidence.Profile{AsOf: "2024-06-15", Sex: s("male"), BirthDate: s("2024-03-01"), Breed: s("Angus"),
			DamID: s(dam), Intact: b(false), Status: "on_farm", StatusDate: s("2024-03-01"),
			GroupIDs: []string{g1}, Identifiers: []evidence.Identifier{{"eid", "982000123456789"}, {"visual", "Y1"}},
			WeightKG: f(80), WeighedOn: s("2024-04-10"), ADGKG: f(1)}},
		{"2024-09-01", evidence.Profile{AsOf: "2024-09-01", Sex: s("male"), BirthDate: s("2024-03-01"), Breed: s("Angus"),
			DamID: s(dam), SireID: s(other), Intact: b(false), Status: "on_farm", StatusDate: s("2024-03-01"),
			GroupIDs: []string{g2}, Identifiers: []evidence.Identifier{{"eid", "982000123456789"}},
			WeightKG: f(80), WeighedOn: s("2024-04-10"), ADGKG: f(1)}},
		{"2025-01-20", evidence.Profile{AsOf: "2025-01-20", Sex: s("male"), BirthDate: s("2024-03-01"), Breed: s("Angus"),
			DamID: s(dam), SireID: s(other), Intact: b(false), Status: "sold", StatusDate: s("2025-01-10"),
			GroupIDs: []string{}, Identifiers: []evidence.Identifier{{"eid", "982000123456789"}},
			WeightKG: f(80), WeighedOn: s("2024-04-10"), ADGKG: f(1)}},
		{"2025-03-01", evidence.Profile{AsOf: "2025-03-01", Sex: s("male"), BirthDate: s("2024-03-01"), Breed: s("Angus"),
			DamID: s(dam), SireID: s(other), Intact: b(false), Status: "on_farm", StatusDate: s("2025-02-01"),
			GroupIDs: []string{}, Identifiers: []evidence.Identifier{{"eid", "982000123456789"}},
			WeightKG: f(80), WeighedOn: s("2024-04-10"), ADGKG: f(1)}},
	}
	for _, c := range cases {
		got := evidence.ProfileOf(strings.ToUpper(calf), c.asOf, facts)
		if !reflect.DeepEqual(got, c.want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(c.want)
			t.Errorf("as of %s:\n got %s\nwant %s", c.asOf, g, w)
		}
		// Order never matters.
		rev := make([]evidence.Fact, len(facts))
		for i := range facts {
			rev[len(facts)-1-i] = facts[i]
		}
		if got2 := evidence.ProfileOf(calf, c.asOf, rev); !reflect.DeepEqual(got, got2) {
			t.Errorf("as of %s the profile depends on the order of the facts", c.asOf)
		}
	}
}

// A fact written later about earlier days changes the profile for every later date and
// for no earlier one.
func TestProfileBackdatedFact(t *testing.T) {
	cow := uid("cow")
	facts := []evidence.Fact{
		fact("1", evidence.Fact{Kind: evidence.KindProfile, AnimalID: cow, Sex: "female", BirthDate: "2020-01-01"}),
	}
	dates := []string{"2023-12-31", "2024-01-01", "2024-06-01", "2025-01-01"}
	before := map[string]evidence.Profile{}
	for _, d := range dates {
		before[d] = evidence.ProfileOf(cow, d, facts)
	}
	facts = append(facts, fact("2", evidence.Fact{Kind: evidence.KindDeath, AnimalID: cow, Date: "2024-01-01"}))
	for _, d := range dates {
		p := evidence.ProfileOf(cow, d, facts)
		if d < "2024-01-01" {
			if !reflect.DeepEqual(p, before[d]) {
				t.Errorf("as of %s a later fact changed the profile", d)
			}
			continue
		}
		if p.Status != "died" || p.StatusDate == nil || *p.StatusDate != "2024-01-01" {
			t.Errorf("as of %s: status %s, want died on 2024-01-01", d, p.Status)
		}
	}
}
