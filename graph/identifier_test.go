package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestIdentifiersGraphQL: identifierAdd reads an EID in any reader form (ISO 11784/11785,
// ISO 24631-6) as its 15 digits, refuses impossible codes and wrong UK check digits naming
// the value, and Farm.animals(search:) finds an animal by the last 4 to 6 digits of any
// identifier.
func TestIdentifiersGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Identity")
		a := app.MustAnimal(u, f.ID, "C-1")
		add := func(scheme, value string) map[string]any {
			return app.GraphQL(u.Token, `mutation($f: ID!, $a: ID!, $s: IdentifierScheme!, $v: String!) {
				identifierAdd(input: {farmID: $f, animalID: $a, scheme: $s, value: $v, startDate: "2025-02-01"}) {
					animal { profile(asOf: "2025-02-01") { identifiers { scheme value } } } } }`,
				map[string]any{"f": f.ID.String(), "a": a.ID.String(), "s": scheme, "v": value})
		}
		out := add("EID", "0826000301234003")
		wantNoErrors(t, out)
		if got := fmt.Sprint(dig(t, out, "data.identifierAdd.animal.profile.identifiers")); got != "[map[scheme:EID value:826000301234003]]" {
			t.Fatalf("identifiers %s", got)
		}
		wantNoErrors(t, add("VISUAL", "uk 284205 700016"))

		for _, c := range []struct{ scheme, value, says string }{
			{"EID", "826301234200033", "above 274877906943"},
			{"EID", "000012903989251", "country code 000"},
			{"EID", "3E7.1CBE991A14", "allow_test_tags"},
			{"VISUAL", "UK 123456 700001", "gives 1"},
		} {
			bad := add(c.scheme, c.value)
			field, _ := dig(t, bad, "errors.0.extensions.fields.0.field").(string)
			msg, _ := dig(t, bad, "errors.0.extensions.fields.0.message").(string)
			if errorCode(bad) != "BAD_USER_INPUT" || !strings.HasSuffix(field, "value") || !strings.Contains(msg, c.says) {
				t.Fatalf("%s %s: %v", c.scheme, c.value, bad)
			}
		}

		for _, q := range []string{"4003", "234003", "00016", "UK284205700016", "0826000301234003"} {
			out := app.GraphQL(u.Token, herdQuery, map[string]any{"f": f.ID.String(), "search": q})
			wantNoErrors(t, out)
			if dig(t, out, "data.farm.animals.totalCount") != float64(1) || dig(t, out, "data.farm.animals.edges.0.node.id") != a.ID.String() {
				t.Fatalf("search %q = %v", q, dig(t, out, "data.farm.animals"))
			}
		}
	})
}
