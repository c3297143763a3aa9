package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestWebAppSeams fixes the seams the web app met in the graph (issue 23): animalCreate takes
// what REST's POST …/animals takes, the herd list reads by tag, webhooks, deliveries and
// withdrawals page by cursor, and days are Dates refused with an error naming the argument.
func TestWebAppSeams(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Seams Farm")
		farm := f.ID.String()
		create := `mutation($in: AnimalCreateInput!) { animalCreate(input: $in) { animal { id tag name
			profile { sex birthDate breed dam { tag } sire { tag } identifiers { scheme value } } } } }`

		t.Run("AnimalCreateTakesRESTFields", func(t *testing.T) {
			dam := app.GraphQL(owner.Token, create, map[string]any{"in": map[string]any{"farmID": farm, "tag": "D-1", "sex": "FEMALE", "birthDate": "2020-03-01", "breed": "Hereford"}})
			wantNoErrors(t, dam)
			sire := app.GraphQL(owner.Token, create, map[string]any{"in": map[string]any{"farmID": farm, "tag": "S-1", "sex": "MALE", "birthDate": "2019-03-01"}})
			wantNoErrors(t, sire)
			res := app.GraphQL(owner.Token, create, map[string]any{"in": map[string]any{"farmID": farm, "tag": "C-1", "name": "Clover",
				"sex": "FEMALE", "birthDate": "2026-04-20", "breed": "Hereford", "eid": "982 000123456789",
				"damID": dig(t, dam, "data.animalCreate.animal.id"), "sireID": dig(t, sire, "data.animalCreate.animal.id")}})
			wantNoErrors(t, res)
			p := "data.animalCreate.animal.profile."
			if dig(t, res, p+"sex") != "FEMALE" || dig(t, res, p+"birthDate") != "2026-04-20" || dig(t, res, p+"breed") != "Hereford" ||
				dig(t, res, p+"dam.tag") != "D-1" || dig(t, res, p+"sire.tag") != "S-1" || dig(t, res, p+"identifiers.0.value") != "982000123456789" {
				t.Fatalf("profile = %v", dig(t, res, "data.animalCreate.animal.profile"))
			}
			// The service's rules, as over REST: parents need a birth date.
			res = app.GraphQL(owner.Token, create, map[string]any{"in": map[string]any{"farmID": farm, "tag": "C-2", "damID": dig(t, dam, "data.animalCreate.animal.id")}})
			if errorCode(res) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(res["errors"]), "birth") {
				t.Fatalf("dam without birth date: %v", res)
			}
			// A day that is not a calendar day is refused by the Date scalar, naming the field.
			res = app.GraphQL(owner.Token, create, map[string]any{"in": map[string]any{"farmID": farm, "tag": "C-3", "birthDate": "2026-02-30"}})
			if errorCode(res) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(res["errors"]), "birthDate") {
				t.Fatalf("invalid birth date: %v", res)
			}
		})

		t.Run("HerdListByTag", func(t *testing.T) {
			for _, tag := range []string{"Z-9", "B-2", "M-5"} {
				app.MustAnimal(owner, f.ID, tag)
			}
			res := app.GraphQL(owner.Token, `query($f: ID!) { farm(id: $f) { animals(first: 3) { edges { node { tag } } pageInfo { endCursor } } } }`, map[string]any{"f": farm})
			wantNoErrors(t, res)
			var tags []string
			for _, e := range dig(t, res, "data.farm.animals.edges").([]any) {
				tags = append(tags, e.(map[string]any)["node"].(map[string]any)["tag"].(string))
			}
			if strings.Join(tags, " ") != "B-2 C-1 D-1" {
				t.Fatalf("first page by tag = %v", tags)
			}
			res = app.GraphQL(owner.Token, `query($f: ID!, $a: Cursor) { farm(id: $f) { animals(first: 10, after: $a) { edges { node { tag } } } } }`,
				map[string]any{"f": farm, "a": dig(t, res, "data.farm.animals.pageInfo.endCursor")})
			wantNoErrors(t, res)
			if got := dig(t, res, "data.farm.animals.edges.0.node.tag"); got != "M-5" {
				t.Fatalf("next page starts at %v", got)
			}
		})

		t.Run("WebhooksAndDeliveriesByCursor", func(t *testing.T) {
			var ids []string
			for i := range 3 {
				res := app.GraphQL(owner.Token, `mutation($f: ID!, $u: String!) { webhookCreate(input: {farmID: $f, url: $u, eventTypes: ["animal.created"]}) { webhook { id } } }`,
					map[string]any{"f": farm, "u": fmt.Sprintf("https://hooks.example/%d", i)})
				wantNoErrors(t, res)
				ids = append(ids, dig(t, res, "data.webhookCreate.webhook.id").(string))
			}
			q := `query($f: ID!, $a: String) { farm(id: $f) { webhooks(first: 2, after: $a) { totalCount pageInfo { hasNextPage endCursor }
				edges { cursor node { id url deliveries(first: 1) { totalCount pageInfo { hasNextPage } edges { cursor node { id status eventType } } } } } } } }`
			res := app.GraphQL(owner.Token, q, map[string]any{"f": farm})
			wantNoErrors(t, res)
			if dig(t, res, "data.farm.webhooks.totalCount") != float64(3) || dig(t, res, "data.farm.webhooks.pageInfo.hasNextPage") != true ||
				dig(t, res, "data.farm.webhooks.edges.0.node.id") != ids[0] || dig(t, res, "data.farm.webhooks.edges.1.node.id") != ids[1] {
				t.Fatalf("first page = %v", res)
			}
			res = app.GraphQL(owner.Token, q, map[string]any{"f": farm, "a": dig(t, res, "data.farm.webhooks.pageInfo.endCursor")})
			wantNoErrors(t, res)
			if dig(t, res, "data.farm.webhooks.edges.0.node.id") != ids[2] || dig(t, res, "data.farm.webhooks.pageInfo.hasNextPage") != false {
				t.Fatalf("second page = %v", res)
			}
			// Animals created since each webhook was registered queued deliveries to it.
			app.MustAnimal(owner, f.ID, "W-1")
			app.MustAnimal(owner, f.ID, "W-2")
			res = app.GraphQL(owner.Token, q, map[string]any{"f": farm})
			wantNoErrors(t, res)
			if dig(t, res, "data.farm.webhooks.edges.0.node.deliveries.totalCount") != float64(2) ||
				dig(t, res, "data.farm.webhooks.edges.0.node.deliveries.pageInfo.hasNextPage") != true ||
				dig(t, res, "data.farm.webhooks.edges.0.node.deliveries.edges.0.node.eventType") != "animal.created" {
				t.Fatalf("deliveries = %v", dig(t, res, "data.farm.webhooks.edges.0.node.deliveries"))
			}
			// The webhook types are Nodes: node(id:) finds an endpoint and a delivery for their
			// farm's OWNER, and nothing for anyone else.
			delivery := dig(t, res, "data.farm.webhooks.edges.0.node.deliveries.edges.0.node.id").(string)
			nq := `query($id: ID!) { node(id: $id) { id ... on WebhookEndpoint { url } ... on WebhookDelivery { eventType attemptLog { id } } } }`
			res = app.GraphQL(owner.Token, nq, map[string]any{"id": ids[0]})
			wantNoErrors(t, res)
			if dig(t, res, "data.node.url") != "https://hooks.example/0" {
				t.Fatalf("node(webhook) = %v", res)
			}
			res = app.GraphQL(owner.Token, nq, map[string]any{"id": delivery})
			wantNoErrors(t, res)
			if dig(t, res, "data.node.id") != delivery || dig(t, res, "data.node.eventType") != "animal.created" {
				t.Fatalf("node(delivery) = %v", res)
			}
			stranger := app.MustUser()
			for _, id := range []string{ids[0], delivery} {
				if res := app.GraphQL(stranger.Token, nq, map[string]any{"id": id}); errorCode(res) != "NOT_FOUND" {
					t.Fatalf("another farm's user read node %s: %v", id, res)
				}
			}
			if res := app.GraphQL(owner.Token, q, map[string]any{"f": farm, "a": "not-a-cursor"}); errorCode(res) != "BAD_USER_INPUT" {
				t.Fatalf("a foreign cursor: %v", res)
			}
			// Other farms' owners see nothing of it; the deprecated list still answers.
			other := app.MustUser()
			if res := app.GraphQL(other.Token, `query($f: ID!) { farm(id: $f) { webhooks { totalCount } } }`, map[string]any{"f": farm}); dig(t, res, "data.farm") != nil {
				t.Fatalf("another user read the webhooks: %v", res)
			}
			if res := app.GraphQL(owner.Token, `query($f: ID!) { webhooks(farmID: $f) { id } }`, map[string]any{"f": farm}); len(dig(t, res, "data.webhooks").([]any)) != 3 {
				t.Fatalf("deprecated webhooks = %v", res)
			}
		})

		t.Run("WithdrawalsByCursor", func(t *testing.T) {
			res := app.GraphQL(owner.Token, `query($f: ID!) { farm(id: $f) { withdrawalsConnection(first: 5) { totalCount pageInfo { hasNextPage startCursor } edges { cursor node { animalTag } } } } }`,
				map[string]any{"f": farm})
			wantNoErrors(t, res)
			if dig(t, res, "data.farm.withdrawalsConnection.totalCount") != float64(0) || dig(t, res, "data.farm.withdrawalsConnection.pageInfo.startCursor") != nil {
				t.Fatalf("withdrawals = %v", res)
			}
		})

		t.Run("TreatmentDays", func(t *testing.T) {
			farmZone(t, app, owner, f.ID)
			out := app.GraphQL(owner.Token, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Penicillin", withdrawalMeatDays: 7, withdrawalMilkHours: 72}) { medicine { id } } }`,
				map[string]any{"f": farm})
			wantNoErrors(t, out)
			v := map[string]any{"f": farm, "m": dig(t, out, "data.medicineCreate.medicine.id"), "a": app.MustAnimal(owner, f.ID, "T-1").ID.String()}
			treat := func(when string) map[string]any {
				return app.GraphQL(owner.Token, `mutation($f: ID!, $m: ID!, $a: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $a, `+when+`}}}) { record { id } } }`, v)
			}
			wantNoErrors(t, treat(`day: "2026-03-01"`))
			wantNoErrors(t, treat(`at: "2026-03-02T08:30:00Z"`))
			wantNoErrors(t, treat(`date: "2026-03-03"`))
			for when, want := range map[string]string{
				`day: "2026-02-29"`:                             "day",
				`day: "2026-03-01", at: "2026-03-01T08:00:00Z"`: "only one of day, at",
				`dose: 1`: "day (a Date) or at",
			} {
				if out := treat(when); errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), want) {
					t.Fatalf("%s: %v", when, out)
				}
			}
		})

		t.Run("BirthEvidenceDate", func(t *testing.T) {
			dam := app.MustAnimal(owner, f.ID, "E-1").ID.String()
			q := `query($f: ID!, $d: ID!, $day: Date, $old: String) { birthEvidence(farmID: $f, damID: $d, dateOfBirth: $day, birthDate: $old) { settingsState plannedWindowState sire { state } } }`
			res := app.GraphQL(owner.Token, q, map[string]any{"f": farm, "d": dam, "day": "2026-04-20"})
			wantNoErrors(t, res)
			if dig(t, res, "data.birthEvidence.settingsState") != "NOT_CONFIGURED" || dig(t, res, "data.birthEvidence.sire.state") != "UNKNOWN" {
				t.Fatalf("evidence = %v", res)
			}
			res = app.GraphQL(owner.Token, q, map[string]any{"f": farm, "d": dam, "day": "2026-13-01"})
			if errorCode(res) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(res["errors"]), "dateOfBirth") {
				t.Fatalf("invalid date: %v", res)
			}
			res = app.GraphQL(owner.Token, q, map[string]any{"f": farm, "d": dam, "day": "2026-04-20", "old": "2026-04-20"})
			if errorCode(res) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(res["errors"]), "not both") {
				t.Fatalf("both days: %v", res)
			}
			res = app.GraphQL(owner.Token, q, map[string]any{"f": farm, "d": dam, "old": "2026-04-20"})
			wantNoErrors(t, res)
		})
	})
}

// TestWebhookConnectionStatements: a page of the farm's webhooks costs the same statements
// for one webhook as for five (the deliveries, when selected, are one query per webhook: a
// farm has at most 20).
func TestWebhookConnectionStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		counts := map[int]int64{}
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		for _, n := range []int{1, 5} {
			f := app.MustFarm(owner, fmt.Sprintf("Hooks %d", n))
			for i := range n {
				wantNoErrors(t, app.GraphQL(owner.Token, `mutation($f: ID!, $u: String!) { webhookCreate(input: {farmID: $f, url: $u, eventTypes: ["animal.created"]}) { secret } }`,
					map[string]any{"f": f.ID.String(), "u": fmt.Sprintf("https://hooks.example/%d", i)}))
			}
			counts[n] = app.Queries(func() {
				wantNoErrors(t, app.GraphQL(owner.Token, webhooksQuery, map[string]any{"f": f.ID.String()}))
			})
		}
		if counts[1] != counts[5] {
			t.Fatalf("statements for 1 and 5 webhooks: %d and %d", counts[1], counts[5])
		}
	})
}

const webhooksQuery = `query($f: ID!) { farm(id: $f) { webhooks(first: 20) { totalCount edges { cursor node { id url eventTypes enabled } } }
	withdrawalsConnection(first: 50) { totalCount edges { node { animalTag } } } } }`

func BenchmarkWebhookConnectionGraphQL(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench")
			for i := range 20 {
				if out := app.GraphQL(u.Token, `mutation($f: ID!, $u: String!) { webhookCreate(input: {farmID: $f, url: $u, eventTypes: ["animal.created"]}) { secret } }`,
					map[string]any{"f": f.ID.String(), "u": fmt.Sprintf("https://hooks.example/%d", i)}); out["errors"] != nil {
					b.Fatal(out["errors"])
				}
			}
			vars := map[string]any{"f": f.ID.String()}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if out := app.GraphQL(u.Token, webhooksQuery, vars); out["errors"] != nil {
					b.Fatal(out["errors"])
				}
			}
		})
	}
}
