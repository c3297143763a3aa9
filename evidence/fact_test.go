package evidence_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

func TestParseFact(t *testing.T) {
	a, b, c, g := uid("a"), uid("b"), uid("c"), uid("g")
	tests := []struct {
		name   string
		raw    string
		fields []string
		want   *evidence.Fact
	}{
		{name: "OKProfile", raw: fmt.Sprintf(`{"kind":"profile","animal_id":%q,"sex":"male","birth_date":"2024-02-29","breed":"Angus"}`, a),
			want: &evidence.Fact{Kind: evidence.KindProfile, AnimalID: a, Sex: "male", BirthDate: "2024-02-29", Breed: "Angus"}},
		{name: "OKProfileMinimal", raw: fmt.Sprintf(`{"kind":"profile","animal_id":%q,"sex":"female"}`, a)},
		{name: "OKCastration", raw: fmt.Sprintf(`{"kind":"castration","animal_id":%q,"date":"2025-01-01"}`, a)},
		{name: "OKExposureDam", raw: fmt.Sprintf(`{"kind":"exposure","sire_id":%q,"dam_id":%q,"start_date":"2025-01-01","end_date":"2025-01-01"}`, a, b)},
		{name: "OKExposureGroupOpen", raw: fmt.Sprintf(`{"kind":"exposure","sire_id":%q,"group_id":%q,"start_date":"2025-01-01"}`, a, g)},
		{name: "OKMembership", raw: fmt.Sprintf(`{"kind":"membership","animal_id":%q,"group_id":%q,"start_date":"2025-01-01","end_date":null}`, a, g)},
		{name: "OKPurchase", raw: fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"2025-01-01"}`, a)},
		{name: "OKMovementIn", raw: fmt.Sprintf(`{"kind":"movement_in","animal_id":%q,"date":"2025-01-01"}`, a)},
		{name: "OKMovementOut", raw: fmt.Sprintf(`{"kind":"movement_out","animal_id":%q,"date":"2025-01-01"}`, a)},
		{name: "OKBirth", raw: fmt.Sprintf(`{"kind":"birth","dam_id":%q,"sire_id":%q,"date":"2025-10-18","offspring_ids":[%q]}`, a, b, c),
			want: &evidence.Fact{Kind: evidence.KindBirth, DamID: a, SireID: b, Date: "2025-10-18", OffspringIDs: []string{c}}},
		{name: "OKUpperCaseIDsNormalised", raw: fmt.Sprintf(`{"kind":"castration","animal_id":%q,"date":"2025-01-01"}`, strings.ToUpper(a)),
			want: &evidence.Fact{Kind: evidence.KindCastration, AnimalID: a, Date: "2025-01-01"}},

		{name: "ErrNotObject", raw: `[1]`, fields: []string{"birth_history"}},
		{name: "ErrNull", raw: `null`, fields: []string{"birth_history"}},
		{name: "ErrMalformedJSON", raw: `{"kind":`, fields: []string{"birth_history"}},
		{name: "ErrKindMissing", raw: fmt.Sprintf(`{"animal_id":%q}`, a), fields: []string{"birth_history.kind"}},
		{name: "ErrKindUnknown", raw: `{"kind":"calving"}`, fields: []string{"birth_history.kind"}},
		{name: "ErrKindNotString", raw: `{"kind":7}`, fields: []string{"birth_history.kind"}},
		{name: "ErrUnknownField", raw: fmt.Sprintf(`{"kind":"castration","animal_id":%q,"date":"2025-01-01","end":"x"}`, a), fields: []string{"birth_history.end"}},
		{name: "ErrFieldNotString", raw: `{"kind":"castration","animal_id":12,"date":"2025-01-01"}`, fields: []string{"birth_history.animal_id"}},
		{name: "ErrRequired", raw: `{"kind":"membership"}`, fields: []string{"birth_history.animal_id", "birth_history.group_id", "birth_history.start_date"}},
		{name: "ErrNotUsedByKind", raw: fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"2025-01-01","sex":"male"}`, a), fields: []string{"birth_history.sex"}},
		{name: "ErrUUID", raw: `{"kind":"purchase","animal_id":"cow-17","date":"2025-01-01"}`, fields: []string{"birth_history.animal_id"}},
		{name: "ErrSex", raw: fmt.Sprintf(`{"kind":"profile","animal_id":%q,"sex":"M"}`, a), fields: []string{"birth_history.sex"}},
		{name: "ErrDateNotCalendar", raw: fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"2025-02-29"}`, a), fields: []string{"birth_history.date"}},
		{name: "ErrDateYearZero", raw: fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"0000-01-01"}`, a), fields: []string{"birth_history.date"}},
		{name: "ErrDateSigned", raw: fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"+202-01-01"}`, a), fields: []string{"birth_history.date"}},
		{name: "ErrDateFormat", raw: fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"01/02/2025"}`, a), fields: []string{"birth_history.date"}},
		{name: "ErrBirthDate", raw: fmt.Sprintf(`{"kind":"profile","animal_id":%q,"sex":"male","birth_date":"2025-04-31"}`, a), fields: []string{"birth_history.birth_date"}},
		{name: "ErrEndBeforeStart", raw: fmt.Sprintf(`{"kind":"membership","animal_id":%q,"group_id":%q,"start_date":"2025-01-02","end_date":"2025-01-01"}`, a, g), fields: []string{"birth_history.end_date"}},
		{name: "ErrExposureDamAndGroup", raw: fmt.Sprintf(`{"kind":"exposure","sire_id":%q,"dam_id":%q,"group_id":%q,"start_date":"2025-01-01"}`, a, b, g), fields: []string{"birth_history.group_id"}},
		{name: "ErrExposureNeither", raw: fmt.Sprintf(`{"kind":"exposure","sire_id":%q,"start_date":"2025-01-01"}`, a), fields: []string{"birth_history.dam_id"}},
		{name: "ErrExposureSireIsDam", raw: fmt.Sprintf(`{"kind":"exposure","sire_id":%q,"dam_id":%q,"start_date":"2025-01-01"}`, a, strings.ToUpper(a)), fields: []string{"birth_history.sire_id"}},
		{name: "ErrBirthSireIsDam", raw: fmt.Sprintf(`{"kind":"birth","dam_id":%q,"sire_id":%q,"date":"2025-01-01"}`, a, a), fields: []string{"birth_history.sire_id"}},
		{name: "ErrOffspringNotArray", raw: fmt.Sprintf(`{"kind":"birth","dam_id":%q,"date":"2025-01-01","offspring_ids":%q}`, a, b), fields: []string{"birth_history.offspring_ids"}},
		{name: "ErrOffspringNotStrings", raw: fmt.Sprintf(`{"kind":"birth","dam_id":%q,"date":"2025-01-01","offspring_ids":[1]}`, a), fields: []string{"birth_history.offspring_ids"}},
		{name: "ErrOffspringBadID", raw: fmt.Sprintf(`{"kind":"birth","dam_id":%q,"date":"2025-01-01","offspring_ids":[%q,"x"]}`, a, b), fields: []string{"birth_history.offspring_ids"}},
		{name: "ErrOffspringRepeated", raw: fmt.Sprintf(`{"kind":"birth","dam_id":%q,"date":"2025-01-01","offspring_ids":[%q,%q]}`, a, b, strings.ToUpper(b)), fields: []string{"birth_history.offspring_ids"}},
		{name: "ErrOffspringIsDam", raw: fmt.Sprintf(`{"kind":"birth","dam_id":%q,"date":"2025-01-01","offspring_ids":[%q,%q]}`, a, b, a), fields: []string{"birth_history.offspring_ids[1]"}},
		{name: "ErrOffspringTooMany", raw: fmt.Sprintf(`{"kind":"birth","dam_id":%q,"date":"2025-01-01","offspring_ids":[%s]}`, a, manyIDs(129)), fields: []string{"birth_history.offspring_ids"}},
		{name: "ErrBreedTooLong", raw: fmt.Sprintf(`{"kind":"profile","animal_id":%q,"sex":"male","breed":%q}`, a, strings.Repeat("b", 101)), fields: []string{"birth_history.breed"}},
		{name: "ErrBreedBlank", raw: fmt.Sprintf(`{"kind":"profile","animal_id":%q,"sex":"male","breed":"  "}`, a), fields: []string{"birth_history.breed"}},
		{name: "ErrSeveralInFieldOrder", raw: `{"kind":"exposure","sire_id":"x","dam_id":"y","start_date":"2025-13-01","zz":1,"aa":2}`,
			fields: []string{"birth_history.aa", "birth_history.zz", "birth_history.sire_id", "birth_history.dam_id", "birth_history.start_date"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, errs := evidence.ParseFact(json.RawMessage(tt.raw))
			if got := fieldsOf(errs); !slices.Equal(got, tt.fields) {
				t.Fatalf("fields = %q, want %q (%v)", got, tt.fields, errs)
			}
			if tt.fields == nil && f.Validate() != nil {
				t.Errorf("parsed fact does not validate: %v", f.Validate())
			}
			if tt.want != nil && MustJSON(t, f) != MustJSON(t, *tt.want) {
				t.Errorf("fact = %+v, want %+v", f, *tt.want)
			}
		})
	}
}

func manyIDs(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%q", uid(fmt.Sprint("o", i)))
	}
	return strings.Join(ids, ",")
}

func TestParseMetadata(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		ok     bool
		fields []string
	}{
		{name: "NoKey", raw: `{"weight_kg":412}`},
		{name: "NotObject", raw: `"notes"`},
		{name: "Null", raw: `null`},
		{name: "OK", raw: fmt.Sprintf(`{"weight_kg":412,"birth_history":{"kind":"purchase","animal_id":%q,"date":"2025-01-01"}}`, uid("a")), ok: true},
		{name: "ErrInvalidFact", raw: `{"birth_history":{"kind":"purchase"}}`, ok: true, fields: []string{"birth_history.animal_id", "birth_history.date"}},
		{name: "ErrNullFact", raw: `{"birth_history":null}`, ok: true, fields: []string{"birth_history"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, errs := evidence.ParseMetadata(json.RawMessage(tt.raw))
			if ok != tt.ok || !slices.Equal(fieldsOf(errs), tt.fields) {
				t.Errorf("ok = %v, errs = %v; want %v, %q", ok, errs, tt.ok, tt.fields)
			}
		})
	}
}

func TestFactReferences(t *testing.T) {
	tests := []struct {
		name            string
		fact            evidence.Fact
		animals, groups []string
	}{
		{name: "Profile", fact: evidence.Fact{Kind: evidence.KindProfile, AnimalID: uid("a"), Sex: "male"}, animals: []string{uid("a")}, groups: []string{}},
		{name: "GroupExposure", fact: evidence.Fact{Kind: evidence.KindExposure, SireID: uid("s"), GroupID: strings.ToUpper(uid("g"))}, animals: []string{uid("s")}, groups: []string{uid("g")}},
		{name: "Birth", fact: evidence.Fact{Kind: evidence.KindBirth, DamID: uid("d"), SireID: uid("s"), OffspringIDs: []string{uid("o1"), uid("o2"), uid("o1")}},
			animals: slices.Sorted(slices.Values([]string{uid("d"), uid("s"), uid("o1"), uid("o2")})), groups: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.fact.ReferencedAnimals(); !slices.Equal(got, tt.animals) {
				t.Errorf("animals = %q, want %q", got, tt.animals)
			}
			if got := tt.fact.ReferencedGroups(); got == nil || !slices.Equal(got, tt.groups) {
				t.Errorf("groups = %q, want %q", got, tt.groups)
			}
		})
	}
}
