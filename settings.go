package herdbook

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // farm time zones resolve the same on every machine, with or without a zoneinfo database

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farmsettings"
	"github.com/herdbook/herdbook/ent/schema/schematype"
)

// Withdrawal rule sets a farm may name in its settings: the statutory schemes for the
// minimum withdrawal period of an off-label (cascade) treatment (docs/settings.md).
const (
	// WithdrawalRulesGBVMR2013 is Great Britain's Veterinary Medicines Regulations 2013,
	// Schedule 4 paragraph 2.
	WithdrawalRulesGBVMR2013 = "gb_vmr_2013"
	// WithdrawalRulesEU20196 is Regulation (EU) 2019/6, Article 115.
	WithdrawalRulesEU20196 = "eu_2019_6"
)

// WithdrawalRuleSets lists the rule sets `withdrawal_rules` may name.
var WithdrawalRuleSets = []string{WithdrawalRulesGBVMR2013, WithdrawalRulesEU20196}

// Bounds of the day counts a farm may set: wide enough for any species' biology, narrow
// enough that a typing slip (a year count in days twice over) is refused.
const (
	maxBreedingAgeDays     = 3650
	maxCalvingIntervalDays = 1000
)

// BreedingAges is the farm's minimum age, in days, at which a female may be a dam and a male
// a sire; nil is unset and not checked.
type BreedingAges struct {
	Female *int
	Male   *int
}

// FarmSettings is a farm's own rules (docs/settings.md). The zero value is a farm that has set
// nothing: no time zone, no withdrawal rule set, no limits.
type FarmSettings struct {
	FarmID uuid.UUID
	// TimeZone is the farm's IANA time zone, "" until set; Location is it loaded.
	TimeZone string
	Location *time.Location
	// WithdrawalRules names the cascade rule set (WithdrawalRuleSets), "" until set.
	WithdrawalRules            string
	Organic                    bool
	AllowTestTags              bool
	MinimumBreedingAgeDays     BreedingAges
	MinimumCalvingIntervalDays *int
	// CalvingEaseScale is the farm's calving-ease scale, nil until set: a calving's calving
	// ease must be one of its codes, and is refused while it is unset (docs/breeding.md).
	CalvingEaseScale []schematype.CalvingEaseGrade
	// WeaningAgeOfDam are the farm's age-of-dam adjustments of the 205-day weaning weight,
	// nil until set: none is applied then.
	WeaningAgeOfDam []schematype.AgeOfDamAdjustment
	// UpdatedAt is when the settings last changed; zero when the farm never set any.
	UpdatedAt time.Time
}

// Today is the farm's local date now, or an error naming time_zone when the farm has not set
// one: Herdbook never takes a bare date as UTC silently.
func (fs FarmSettings) Today(now time.Time) (string, error) {
	if fs.Location == nil {
		return "", Invalid(FieldError{Field: "time_zone", Message: "is not set in the farm's settings; set it with PUT …/settings before recording bare dates"})
	}
	return now.In(fs.Location).Format(time.DateOnly), nil
}

// DefaultDay is the day a default ("today") means on the farm: its local date when it has set
// its time zone (zoned), the UTC date until then. For defaults and bounds only, never to read
// a bare date a caller wrote (Today refuses that without a zone).
func (fs FarmSettings) DefaultDay(now time.Time) (day string, zoned bool) {
	if fs.Location == nil {
		return now.UTC().Format(time.DateOnly), false
	}
	return now.In(fs.Location).Format(time.DateOnly), true
}

// FarmSettingsPatch changes a farm's settings; a field left unset stays as it is, and a set
// field with a nil value unsets it.
type FarmSettingsPatch struct {
	TimeZone                     Optional[string]
	WithdrawalRules              Optional[string]
	Organic                      *bool
	AllowTestTags                *bool
	MinimumBreedingAgeFemaleDays Optional[int]
	MinimumBreedingAgeMaleDays   Optional[int]
	MinimumCalvingIntervalDays   Optional[int]
	CalvingEaseScale             Optional[[]schematype.CalvingEaseGrade]
	WeaningAgeOfDam              Optional[[]schematype.AgeOfDamAdjustment]
}

// Bounds of the breeding settings.
const (
	MaxCalvingEaseGrades  = 20
	maxCalvingEaseCode    = 20
	maxCalvingEaseLabel   = 200
	MaxAgeOfDamLines      = 20
	maxAgeOfDamDays       = 36500
	maxAgeOfDamAdjustment = 500.0
)

// Validate checks a FarmSettingsPatch, naming each field as the REST body spells it.
func (p FarmSettingsPatch) Validate() error {
	var fe fieldErrors
	if v := p.TimeZone.Value; v != nil {
		if _, err := loadZone(*v); err != nil {
			fe.add("time_zone", "must be an IANA time zone name such as Europe/London")
		}
	}
	if v := p.WithdrawalRules.Value; v != nil && !slices.Contains(WithdrawalRuleSets, *v) {
		fe.add("withdrawal_rules", "must be one of %s", strings.Join(WithdrawalRuleSets, ", "))
	}
	dayCount(&fe, "minimum_breeding_age_days.female", p.MinimumBreedingAgeFemaleDays.Value, maxBreedingAgeDays)
	dayCount(&fe, "minimum_breeding_age_days.male", p.MinimumBreedingAgeMaleDays.Value, maxBreedingAgeDays)
	dayCount(&fe, "minimum_calving_interval_days", p.MinimumCalvingIntervalDays.Value, maxCalvingIntervalDays)
	if v := p.CalvingEaseScale.Value; v != nil {
		validateEaseScale(&fe, *v)
	}
	if v := p.WeaningAgeOfDam.Value; v != nil {
		validateAgeOfDam(&fe, *v)
	}
	return fe.err()
}

func validateEaseScale(fe *fieldErrors, scale []schematype.CalvingEaseGrade) {
	if len(scale) < 1 || len(scale) > MaxCalvingEaseGrades {
		fe.add("calving_ease_scale", "must have 1 to %d grades, or be null", MaxCalvingEaseGrades)
	}
	seen := map[string]bool{}
	for i, g := range scale {
		at := fmt.Sprintf("calving_ease_scale[%d]", i)
		validateName(fe, at+".code", g.Code, 1, maxCalvingEaseCode)
		validateName(fe, at+".label", g.Label, 1, maxCalvingEaseLabel)
		if seen[g.Code] {
			fe.add(at+".code", "repeats an earlier grade's code")
		}
		seen[g.Code] = true
	}
}

func validateAgeOfDam(fe *fieldErrors, lines []schematype.AgeOfDamAdjustment) {
	if len(lines) < 1 || len(lines) > MaxAgeOfDamLines {
		fe.add("weaning_age_of_dam", "must have 1 to %d lines, or be null", MaxAgeOfDamLines)
	}
	for i, l := range lines {
		at := fmt.Sprintf("weaning_age_of_dam[%d]", i)
		if l.MinDays < 0 || l.MinDays > maxAgeOfDamDays {
			fe.add(at+".min_days", "must be a whole number of days from 0 to %d", maxAgeOfDamDays)
		}
		if l.MaxDays < l.MinDays || l.MaxDays > maxAgeOfDamDays {
			fe.add(at+".max_days", "must be from min_days to %d", maxAgeOfDamDays)
		}
		for _, kg := range []struct {
			name string
			v    float64
		}{{"male_kg", l.MaleKG}, {"female_kg", l.FemaleKG}} {
			if math.IsNaN(kg.v) || math.Abs(kg.v) > maxAgeOfDamAdjustment {
				fe.add(at+"."+kg.name, "must be between -%g and %g", maxAgeOfDamAdjustment, maxAgeOfDamAdjustment)
			}
		}
		for j := range i {
			if o := lines[j]; l.MinDays <= o.MaxDays && o.MinDays <= l.MaxDays {
				fe.add(at, "overlaps weaning_age_of_dam[%d]: a dam's age must match one line at most", j)
			}
		}
	}
}

func dayCount(fe *fieldErrors, field string, v *int, max int) {
	if v != nil && (*v < 1 || *v > max) {
		fe.add(field, "must be a whole number of days from 1 to %d", max)
	}
}

// loadZone loads an IANA zone by name. "Local" is refused: it would mean the server's zone,
// which is no farm's.
func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" || strings.TrimSpace(name) != name {
		return nil, Errorf(EINVALID, "not a time zone")
	}
	return time.LoadLocation(name)
}

// FarmSettings returns the farm's settings to any member with read:farms.
func (s *Service) FarmSettings(ctx context.Context, farmID uuid.UUID) (FarmSettings, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadFarms); err != nil {
		return FarmSettings{}, err
	}
	return s.settings(ctx, farmID)
}

// settings reads the farm's settings for a rule, with no authorization check: the zero
// settings (everything unset) when the farm never set any.
func (s *Service) settings(ctx context.Context, farmID uuid.UUID) (FarmSettings, error) {
	row, err := s.Client(ctx).FarmSettings.Query().Where(farmsettings.FarmID(farmID)).Only(ctx)
	if ent.IsNotFound(err) {
		return FarmSettings{FarmID: farmID}, nil
	}
	if err != nil {
		return FarmSettings{}, err
	}
	return settingsFromRow(row), nil
}

func settingsFromRow(row *ent.FarmSettings) FarmSettings {
	out := FarmSettings{
		FarmID:                     row.FarmID,
		Organic:                    row.Organic,
		AllowTestTags:              row.AllowTestTags,
		MinimumBreedingAgeDays:     BreedingAges{Female: row.MinimumBreedingAgeFemaleDays, Male: row.MinimumBreedingAgeMaleDays},
		MinimumCalvingIntervalDays: row.MinimumCalvingIntervalDays,
		CalvingEaseScale:           row.CalvingEaseScale,
		WeaningAgeOfDam:            row.WeaningAgeOfDam,
		UpdatedAt:                  row.UpdatedAt,
	}
	if row.TimeZone != nil {
		out.TimeZone = *row.TimeZone
		// A zone stored once loads again: the tz database is compiled into the binary.
		out.Location, _ = loadZone(out.TimeZone)
	}
	if row.WithdrawalRules != nil {
		out.WithdrawalRules = *row.WithdrawalRules
	}
	return out
}

// UpdateFarmSettings applies a patch to the farm's settings. Only the OWNER changes them:
// they decide which histories are accepted and how long withdrawals last.
func (s *Service) UpdateFarmSettings(ctx context.Context, farmID uuid.UUID, p FarmSettingsPatch) (FarmSettings, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeWriteFarms)
	if err != nil {
		return FarmSettings{}, err
	}
	if err := p.Validate(); err != nil {
		return FarmSettings{}, err
	}
	var out FarmSettings
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		row, err := c.FarmSettings.Query().Where(farmsettings.FarmID(farmID)).Only(ctx)
		cur := FarmSettings{FarmID: farmID}
		switch {
		case err == nil:
			cur = settingsFromRow(row)
		case !ent.IsNotFound(err):
			return err
		}
		next := applySettingsPatch(cur, p)
		if sameSettings(cur, next) {
			out = cur // a patch that changes nothing writes nothing
			return nil
		}
		if row == nil {
			if row, err = c.FarmSettings.Create().SetFarmID(farmID).SetUpdatedBy(v.UserID).Save(ctx); err != nil {
				return constraint(err, "the settings were changed at the same time; try again")
			}
		}
		// An update of the row by its id and farm, then a read of it by both: ent's
		// UpdateOne(...).Save reads the row back by its id alone, which a Citus cluster asks
		// every shard for (docs/scaling.md). The same two statements.
		u := c.FarmSettings.Update().Where(farmsettings.ID(row.ID), farmsettings.FarmID(farmID)).SetUpdatedBy(v.UserID).
			SetOrganic(next.Organic).SetAllowTestTags(next.AllowTestTags).
			SetNillableMinimumBreedingAgeFemaleDays(next.MinimumBreedingAgeDays.Female).
			SetNillableMinimumBreedingAgeMaleDays(next.MinimumBreedingAgeDays.Male).
			SetNillableMinimumCalvingIntervalDays(next.MinimumCalvingIntervalDays)
		if next.MinimumBreedingAgeDays.Female == nil {
			u.ClearMinimumBreedingAgeFemaleDays()
		}
		if next.MinimumBreedingAgeDays.Male == nil {
			u.ClearMinimumBreedingAgeMaleDays()
		}
		if next.MinimumCalvingIntervalDays == nil {
			u.ClearMinimumCalvingIntervalDays()
		}
		if next.CalvingEaseScale == nil {
			u.ClearCalvingEaseScale()
		} else {
			u.SetCalvingEaseScale(next.CalvingEaseScale)
		}
		if next.WeaningAgeOfDam == nil {
			u.ClearWeaningAgeOfDam()
		} else {
			u.SetWeaningAgeOfDam(next.WeaningAgeOfDam)
		}
		if next.TimeZone == "" {
			u.ClearTimeZone()
		} else {
			u.SetTimeZone(next.TimeZone)
		}
		if next.WithdrawalRules == "" {
			u.ClearWithdrawalRules()
		} else {
			u.SetWithdrawalRules(next.WithdrawalRules)
		}
		if err := u.Exec(ctx); err != nil {
			return err
		}
		row, err = c.FarmSettings.Query().Where(farmsettings.ID(row.ID), farmsettings.FarmID(farmID)).Only(ctx)
		if err != nil {
			return err
		}
		out = settingsFromRow(row)
		return nil
	})
	return out, err
}

func applySettingsPatch(cur FarmSettings, p FarmSettingsPatch) FarmSettings {
	next := cur
	if p.TimeZone.Set {
		next.TimeZone, next.Location = "", nil
		if p.TimeZone.Value != nil {
			next.TimeZone = *p.TimeZone.Value
			next.Location, _ = loadZone(next.TimeZone)
		}
	}
	if p.WithdrawalRules.Set {
		next.WithdrawalRules = ""
		if p.WithdrawalRules.Value != nil {
			next.WithdrawalRules = *p.WithdrawalRules.Value
		}
	}
	if p.Organic != nil {
		next.Organic = *p.Organic
	}
	if p.AllowTestTags != nil {
		next.AllowTestTags = *p.AllowTestTags
	}
	if p.MinimumBreedingAgeFemaleDays.Set {
		next.MinimumBreedingAgeDays.Female = p.MinimumBreedingAgeFemaleDays.Value
	}
	if p.MinimumBreedingAgeMaleDays.Set {
		next.MinimumBreedingAgeDays.Male = p.MinimumBreedingAgeMaleDays.Value
	}
	if p.MinimumCalvingIntervalDays.Set {
		next.MinimumCalvingIntervalDays = p.MinimumCalvingIntervalDays.Value
	}
	if p.CalvingEaseScale.Set {
		next.CalvingEaseScale = nil
		if v := p.CalvingEaseScale.Value; v != nil {
			next.CalvingEaseScale = slices.Clone(*v)
		}
	}
	if p.WeaningAgeOfDam.Set {
		next.WeaningAgeOfDam = nil
		if v := p.WeaningAgeOfDam.Value; v != nil {
			next.WeaningAgeOfDam = slices.Clone(*v)
		}
	}
	return next
}

func sameSettings(a, b FarmSettings) bool {
	return a.TimeZone == b.TimeZone && a.WithdrawalRules == b.WithdrawalRules &&
		a.Organic == b.Organic && a.AllowTestTags == b.AllowTestTags &&
		sameInt(a.MinimumBreedingAgeDays.Female, b.MinimumBreedingAgeDays.Female) &&
		sameInt(a.MinimumBreedingAgeDays.Male, b.MinimumBreedingAgeDays.Male) &&
		sameInt(a.MinimumCalvingIntervalDays, b.MinimumCalvingIntervalDays) &&
		(a.CalvingEaseScale == nil) == (b.CalvingEaseScale == nil) && slices.Equal(a.CalvingEaseScale, b.CalvingEaseScale) &&
		(a.WeaningAgeOfDam == nil) == (b.WeaningAgeOfDam == nil) && slices.Equal(a.WeaningAgeOfDam, b.WeaningAgeOfDam)
}

func sameInt(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
