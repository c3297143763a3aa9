package graph_test

import (
	"fmt"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestMedicineLabelGraph: a label as printed through GraphQL (a dash is null, lines per route
// and dose band, a dry-cow flag), and an off-label treatment whose answer names the rule that
// gave its periods: a sheep-only product (28 days for sheep) given to a cow on a farm under
// gb_vmr_2013 gets 1.5 × 28 = 42 days of meat and 168 hours of milk.
func TestMedicineLabelGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Label Farm")
		cow := app.MustAnimal(owner, f.ID, "UK-7")
		v := map[string]any{"f": f.ID.String(), "cow": cow.ID.String()}
		do := func(query string) map[string]any { t.Helper(); return app.GraphQL(owner.Token, query, v) }

		out := do(`mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "X", withdrawalMilkHours: 0}) { medicine { id } } }`)
		if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "withdrawal_meat_days") {
			t.Fatalf("a left-out period: %v", out)
		}
		out = do(`mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Sheep drench", withdrawalMeatDays: null, withdrawalMilkHours: null, dryCow: false,
			speciesWithdrawals: [{species: SHEEP, route: "oral", dose: {unit: "mg/kg", min: 2.5, max: 5}, withdrawalMeatDays: 28, withdrawalMilkHours: null}]}) {
			medicine { id withdrawalMeatDays withdrawalMilkHours dryCow speciesWithdrawals { species route dose { unit min max } withdrawalMeatDays withdrawalMilkHours } } } }`)
		wantNoErrors(t, out)
		m := "data.medicineCreate.medicine."
		if dig(t, out, m+"withdrawalMeatDays") != nil || dig(t, out, m+"dryCow") != false || dig(t, out, m+"speciesWithdrawals.0.route") != "oral" ||
			dig(t, out, m+"speciesWithdrawals.0.dose.max") != float64(5) || dig(t, out, m+"speciesWithdrawals.0.withdrawalMilkHours") != nil {
			t.Fatalf("created %v", out)
		}
		v["m"] = dig(t, out, m+"id")
		out = do(`mutation($f: ID!, $m: ID!) { medicineUpdate(input: {farmID: $f, id: $m, dryCow: true}) { medicine { version dryCow withdrawalMeatDays } } }`)
		wantNoErrors(t, out)
		if dig(t, out, "data.medicineUpdate.medicine.version") != float64(2) || dig(t, out, "data.medicineUpdate.medicine.dryCow") != true ||
			dig(t, out, "data.medicineUpdate.medicine.withdrawalMeatDays") != nil {
			t.Fatalf("updated %v", out)
		}
		out = do(`mutation($f: ID!, $m: ID!) { medicineUpdate(input: {farmID: $f, id: $m, dryCow: false}) { medicine { version } } }`)
		wantNoErrors(t, out)

		treat := `mutation($f: ID!, $m: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $cow,
			date: "2026-05-01T08:00:00+01:00", route: "oral"}}}) { record { id } } }`
		out = do(treat)
		if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "withdrawal_rules") {
			t.Fatalf("off-label without a rule set: %v", out)
		}
		rules := herdbook.WithdrawalRulesGBVMR2013
		if _, err := app.Service.UpdateFarmSettings(app.Ctx(owner), f.ID, herdbook.FarmSettingsPatch{WithdrawalRules: herdbook.Optional[string]{Set: true, Value: &rules}}); err != nil {
			t.Fatal(err)
		}
		wantNoErrors(t, do(treat))
		out = do(`query($f: ID!) { node(id: $f) { ... on Farm { withdrawals(asOf: "2026-05-02") { nodes { treatments {
			withdrawalMeatDays withdrawalMilkHours meatRule milkRule offLabel meatClearOn } } } } } }`)
		wantNoErrors(t, out)
		tr := "data.node.withdrawals.nodes.0.treatments.0."
		if dig(t, out, tr+"withdrawalMeatDays") != float64(42) || dig(t, out, tr+"withdrawalMilkHours") != float64(168) || dig(t, out, tr+"offLabel") != true ||
			!strings.HasPrefix(dig(t, out, tr+"meatRule").(string), "gb_vmr_2013 Sch. 4 para 2(3)(c)(i)") || dig(t, out, tr+"meatClearOn") != "2026-06-12" {
			t.Fatalf("withdrawals %v", out)
		}
		out = do(`mutation($f: ID!, $m: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $cow,
			date: "2026-05-01", offLabel: true}}}) { record { id } } }`)
		if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "time_zone") {
			t.Fatalf("a bare date without a time zone: %v", out)
		}
	})
}
