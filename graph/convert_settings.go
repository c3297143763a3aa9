package graph

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/graph/model"
)

// omitted turns a gqlgen omittable input into the service's patch value.
func omitted[T any](o graphql.Omittable[*T]) herdbook.Optional[T] {
	v, ok := o.ValueOK()
	if !ok {
		return herdbook.Optional[T]{}
	}
	return herdbook.Optional[T]{Set: true, Value: v}
}

func farmSettingsPatch(in model.FarmSettingsUpdateInput) herdbook.FarmSettingsPatch {
	p := herdbook.FarmSettingsPatch{
		TimeZone:                     omitted(in.TimeZone),
		Organic:                      in.Organic,
		AllowTestTags:                in.AllowTestTags,
		MinimumBreedingAgeFemaleDays: omitted(in.MinimumBreedingAgeFemaleDays),
		MinimumBreedingAgeMaleDays:   omitted(in.MinimumBreedingAgeMaleDays),
		MinimumCalvingIntervalDays:   omitted(in.MinimumCalvingIntervalDays),
	}
	if v, ok := in.CalvingEaseScale.ValueOK(); ok {
		p.CalvingEaseScale.Set = true
		if v != nil {
			scale := make([]schematype.CalvingEaseGrade, 0, len(v))
			for _, g := range v {
				scale = append(scale, *g)
			}
			p.CalvingEaseScale.Value = &scale
		}
	}
	if v, ok := in.WeaningAgeOfDam.ValueOK(); ok {
		p.WeaningAgeOfDam.Set = true
		if v != nil {
			lines := make([]schematype.AgeOfDamAdjustment, 0, len(v))
			for _, l := range v {
				lines = append(lines, *l)
			}
			p.WeaningAgeOfDam.Value = &lines
		}
	}
	if v, ok := in.WithdrawalRules.ValueOK(); ok {
		p.WithdrawalRules.Set = true
		if v != nil {
			s := strings.ToLower(string(*v))
			p.WithdrawalRules.Value = &s
		}
	}
	return p
}

func withdrawalRuleSet(s string) *model.WithdrawalRuleSet {
	if s == "" {
		return nil
	}
	v := model.WithdrawalRuleSet(strings.ToUpper(s))
	return &v
}
