package graph

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/herdbook/herdbook"
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
