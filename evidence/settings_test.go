package evidence_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

func TestSettingsValidate(t *testing.T) {
	win := func(label, start, end string) evidence.Window {
		return evidence.Window{Label: label, StartDate: start, EndDate: end}
	}
	tests := []struct {
		name   string
		edit   func(s *evidence.Settings)
		farm   string
		fields []string
	}{
		{name: "OK", edit: func(*evidence.Settings) {}},
		{name: "OKMinimal", edit: func(s *evidence.Settings) { *s = evidence.Settings{Version: 1, Species: "CATTLE"} }},
		{name: "OKBounds", edit: func(s *evidence.Settings) {
			s.GestationDays = &evidence.Range{Min: 1, Max: 2000}
			s.MinimumSireAgeDays = intp(10000)
			s.BirthWindows = make([]evidence.Window, 40)
			for i := range s.BirthWindows {
				s.BirthWindows[i] = win(strings.Repeat("é", 80), "2024-02-29", "2024-02-29")
			}
		}},
		{name: "OKEqualGestation", edit: func(s *evidence.Settings) { s.GestationDays = &evidence.Range{Min: 283, Max: 283} }},
		{name: "ErrVersion", edit: func(s *evidence.Settings) { s.Version = 2 }, fields: []string{"version"}},
		{name: "ErrSpeciesUnknown", edit: func(s *evidence.Settings) { s.Species = "cattle" }, fields: []string{"species"}},
		{name: "ErrSpeciesMismatch", farm: "SHEEP", edit: func(*evidence.Settings) {}, fields: []string{"species"}},
		{name: "ErrGestationMinTooLow", edit: func(s *evidence.Settings) { s.GestationDays.Min = 0 }, fields: []string{"gestation_days.min"}},
		{name: "ErrGestationMaxTooHigh", edit: func(s *evidence.Settings) { s.GestationDays.Max = 2001 }, fields: []string{"gestation_days.max"}},
		{name: "ErrGestationMinAboveMax", edit: func(s *evidence.Settings) { s.GestationDays = &evidence.Range{Min: 291, Max: 290} }, fields: []string{"gestation_days.max"}},
		{name: "ErrSireAgeZero", edit: func(s *evidence.Settings) { s.MinimumSireAgeDays = intp(0) }, fields: []string{"minimum_sire_age_days"}},
		{name: "ErrSireAgeTooHigh", edit: func(s *evidence.Settings) { s.MinimumSireAgeDays = intp(10001) }, fields: []string{"minimum_sire_age_days"}},
		{name: "ErrTooManyWindows", edit: func(s *evidence.Settings) {
			s.BirthWindows = slices.Repeat([]evidence.Window{win("w", "2025-01-01", "2025-01-02")}, 41)
		}, fields: []string{"birth_windows"}},
		{name: "ErrLabelEmpty", edit: func(s *evidence.Settings) { s.BirthWindows[0].Label = "" }, fields: []string{"birth_windows[0].label"}},
		{name: "ErrLabelTooLong", edit: func(s *evidence.Settings) { s.BirthWindows[0].Label = strings.Repeat("a", 81) }, fields: []string{"birth_windows[0].label"}},
		{name: "ErrLabelNotUTF8", edit: func(s *evidence.Settings) { s.BirthWindows[0].Label = "\xff" }, fields: []string{"birth_windows[0].label"}},
		{name: "ErrStartDateNotCalendar", edit: func(s *evidence.Settings) {
			s.BirthWindows = append(s.BirthWindows, win("w", "2025-02-29", "2025-03-01"))
		}, fields: []string{"birth_windows[1].start_date"}},
		{name: "ErrEndDateFormat", edit: func(s *evidence.Settings) { s.BirthWindows[0].EndDate = "2025-11-3" }, fields: []string{"birth_windows[0].end_date"}},
		{name: "ErrEndDateTimestamp", edit: func(s *evidence.Settings) { s.BirthWindows[0].EndDate = "2025-11-30T00:00:00Z" }, fields: []string{"birth_windows[0].end_date"}},
		{name: "ErrEndBeforeStart", edit: func(s *evidence.Settings) { s.BirthWindows[0].EndDate = "2025-08-31" }, fields: []string{"birth_windows[0].end_date"}},
		{name: "ErrSeveral", edit: func(s *evidence.Settings) { s.Version = 0; s.GestationDays.Min = -1; s.BirthWindows[0].StartDate = "" },
			fields: []string{"version", "gestation_days.min", "birth_windows[0].start_date"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := baseSettings()
			tt.edit(s)
			farm := tt.farm
			if farm == "" {
				farm = "CATTLE"
			}
			errs := s.Validate(farm)
			if got := fieldsOf(errs); !slices.Equal(got, tt.fields) {
				t.Errorf("fields = %q, want %q (%v)", got, tt.fields, errs)
			}
			for _, e := range errs {
				if e.Message == "" || e.Error() != e.Field+": "+e.Message {
					t.Errorf("bad error %+v", e)
				}
			}
		})
	}
}

func TestSettingsJSON(t *testing.T) {
	var s evidence.Settings
	raw := `{"version":1,"species":"GOAT","gestation_days":{"min":145,"max":155},"minimum_sire_age_days":200,"birth_windows":[{"label":"Spring","start_date":"2026-03-01","end_date":"2026-04-15"}]}`
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate("GOAT"); errs != nil {
		t.Fatalf("Validate: %v", errs)
	}
	if got := MustJSON(t, s); got != raw {
		t.Errorf("round trip:\n got %s\nwant %s", got, raw)
	}
	ev := evidence.Review(evidence.Input{Settings: &s, DamID: uid("dam"), BirthDate: "2026-03-10"})
	if got := MustJSON(t, ev.Settings); got != raw {
		t.Errorf("echoed settings %s", got)
	}
	ev.Settings.BirthWindows[0].Label = "changed"
	if s.BirthWindows[0].Label != "Spring" {
		t.Errorf("the echoed settings share memory with the input")
	}
	bare := evidence.Review(evidence.Input{Settings: &evidence.Settings{Version: 1, Species: "GOAT"}, DamID: uid("dam"), BirthDate: "2026-03-10"})
	if got := MustJSON(t, bare.Settings); got != `{"version":1,"species":"GOAT","birth_windows":[]}` {
		t.Errorf("bare settings echoed as %s", got)
	}
}
