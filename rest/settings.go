package rest

import (
	"net/http"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// farmSettingsJSON is the farm settings resource (docs/settings.md): every field is present, an
// unset limit as null.
type farmSettingsJSON struct {
	TimeZone                   *string                         `json:"time_zone"`
	WithdrawalRules            *string                         `json:"withdrawal_rules"`
	Organic                    bool                            `json:"organic"`
	AllowTestTags              bool                            `json:"allow_test_tags"`
	MinimumBreedingAgeDays     breedingAgesJSON                `json:"minimum_breeding_age_days"`
	MinimumCalvingIntervalDays *int                            `json:"minimum_calving_interval_days"`
	CalvingEaseScale           []schematype.CalvingEaseGrade   `json:"calving_ease_scale"`
	WeaningAgeOfDam            []schematype.AgeOfDamAdjustment `json:"weaning_age_of_dam"`
	UpdatedAt                  *time.Time                      `json:"updated_at"`
}

type breedingAgesJSON struct {
	Female *int `json:"female"`
	Male   *int `json:"male"`
}

func newFarmSettingsJSON(s herdbook.FarmSettings) farmSettingsJSON {
	out := farmSettingsJSON{
		Organic:                    s.Organic,
		AllowTestTags:              s.AllowTestTags,
		MinimumBreedingAgeDays:     breedingAgesJSON{Female: s.MinimumBreedingAgeDays.Female, Male: s.MinimumBreedingAgeDays.Male},
		MinimumCalvingIntervalDays: s.MinimumCalvingIntervalDays,
		CalvingEaseScale:           s.CalvingEaseScale,
		WeaningAgeOfDam:            s.WeaningAgeOfDam,
	}
	if s.TimeZone != "" {
		out.TimeZone = &s.TimeZone
	}
	if s.WithdrawalRules != "" {
		out.WithdrawalRules = &s.WithdrawalRules
	}
	if !s.UpdatedAt.IsZero() {
		t := s.UpdatedAt.UTC()
		out.UpdatedAt = &t
	}
	return out
}

type farmSettingsBody struct {
	TimeZone                   nullable[string]                          `json:"time_zone"`
	WithdrawalRules            nullable[string]                          `json:"withdrawal_rules"`
	Organic                    nullable[bool]                            `json:"organic"`
	AllowTestTags              nullable[bool]                            `json:"allow_test_tags"`
	MinimumBreedingAgeDays     nullable[breedingAgesPatchBody]           `json:"minimum_breeding_age_days"`
	MinimumCalvingIntervalDays nullable[int]                             `json:"minimum_calving_interval_days"`
	CalvingEaseScale           nullable[[]schematype.CalvingEaseGrade]   `json:"calving_ease_scale"`
	WeaningAgeOfDam            nullable[[]schematype.AgeOfDamAdjustment] `json:"weaning_age_of_dam"`
}

type breedingAgesPatchBody struct {
	Female nullable[int] `json:"female"`
	Male   nullable[int] `json:"male"`
}

func (h *Handler) getFarmSettings(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	s, err := h.svc.FarmSettings(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newFarmSettingsJSON(s))
}

func (h *Handler) putFarmSettings(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b farmSettingsBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	p := herdbook.FarmSettingsPatch{
		TimeZone:                   b.TimeZone.optional(),
		WithdrawalRules:            b.WithdrawalRules.optional(),
		Organic:                    notNull(&fe, "organic", b.Organic),
		AllowTestTags:              notNull(&fe, "allow_test_tags", b.AllowTestTags),
		MinimumCalvingIntervalDays: b.MinimumCalvingIntervalDays.optional(),
		CalvingEaseScale:           b.CalvingEaseScale.optional(),
		WeaningAgeOfDam:            b.WeaningAgeOfDam.optional(),
	}
	if ages := b.MinimumBreedingAgeDays; ages.Set {
		if ages.Null { // null unsets both limits
			p.MinimumBreedingAgeFemaleDays = herdbook.Optional[int]{Set: true}
			p.MinimumBreedingAgeMaleDays = herdbook.Optional[int]{Set: true}
		} else {
			p.MinimumBreedingAgeFemaleDays = ages.V.Female.optional()
			p.MinimumBreedingAgeMaleDays = ages.V.Male.optional()
		}
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	s, err := h.svc.UpdateFarmSettings(r.Context(), id, p)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newFarmSettingsJSON(s))
}
