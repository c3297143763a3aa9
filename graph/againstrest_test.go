package graph_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// restPair is one screen's data asked both ways: the GraphQL document (with its variables)
// and the REST call that answers the same data (issue 32.3).
type restPair struct {
	name  string
	query string // the GraphQL document
	vars  func(s *screensFarm) map[string]any
	rest  func(s *screensFarm) string // the REST path
	// gqlIDs and restIDs name the ids both answers hold, to check they are the same data.
	gqlIDs, restIDs func(tb testing.TB, body []byte) []string
	// byTag: the GraphQL page is in tag order and REST's in the order the animals were
	// written (ties broken by id), so that the two pages hold the same animals, but for an
	// animal or two (the calf, tagged CALF-1), in another order.
	byTag bool
}

// The pairs' GraphQL documents asking what the REST answer holds. The REST register row
// (rest/animal.go's registerAnimalJSON) is the animal's columns and its whole profile as of
// the day; the REST withdrawal line (animalWithdrawalJSON) holds its treatments.
const (
	registerSameFields = `query RegisterREST($farmID: ID!, $first: Int!, $asOf: Date) {
  farm(id: $farmID) {
    animals(first: $first, orderBy: { field: CREATED_AT }, asOf: $asOf) {
      totalCount
      edges { node { ...RESTAnimal } }
    }
  }
}
fragment RESTAnimal on Animal {
  id farmID tag name isActive createdAt updatedAt
  profile(asOf: $asOf) {
    asOf sex birthDate breed damID sireID geneticDamID surrogateDamID intact status statusDate
    groupIDs identifiers { scheme value } weightKg weighedOn adgKg
  }
}`
	animalSameFields = `query AnimalREST($id: ID!, $asOf: Date) {
  node(id: $id) {
    id
    ... on Animal {
      farmID tag name isActive createdAt updatedAt
      profile(asOf: $asOf) {
        asOf sex birthDate breed damID sireID geneticDamID surrogateDamID intact status statusDate
        groupIDs identifiers { scheme value } weightKg weighedOn adgKg
      }
      withdrawal(asOf: $asOf) { meatClearOn milkClearAt milkUntilCalving treatments { recordID } }
    }
  }
}`
	withdrawalsSameFields = `query WithdrawalsREST($farmID: ID!, $asOf: Date) {
  farm(id: $farmID) {
    withdrawals(asOf: $asOf, take: 500) {
      totalCount
      nodes {
        animalID animalTag meatClearOn milkClearAt milkUntilCalving
        treatments { recordID recordItemID medicineID medicineName medicineVersion groupID date
          withdrawalMeatDays withdrawalMilkHours meatRule milkRule offLabel meatClearOn milkClearAt milkUntilCalving }
      }
    }
  }
}`
)

// restPairs are the screens a REST call answers too (issue 32.3), each paired as:
//
//   - register50/app: the app's Register document (web/app/src/graphql/register.graphql), first
//     50 ordered by tag as of today, against GET /v1/farm/{farm}/animals?as_of=today&take=50
//     (the first 50 of the register with their profiles as of today). The REST row holds more
//     (farm_id, is_active, created_at, updated_at, the whole profile): the app asks less.
//     The app orders by tag, REST by creation: on the screens farm the pages share 49 animals
//     (the app's first row is the calf CALF-1, written last).
//   - register50/same: the first 50 in REST's order (CREATED_AT) with every field the REST row
//     holds (registerSameFields): the same animals in the same order.
//   - animal: the parts of the app's Animal document that REST answers, the animal's columns
//     and its profile as of today with its withdrawal (animalSameFields: dam and sire as ids,
//     as REST gives them; the weights, offspring and timeline are other REST calls), against
//     GET /v1/farm/{farm}/animals/{cow}?as_of=today.
//   - withdrawals/app: the app's AnimalWithdrawal document (Farm.withdrawals, take 500, as of
//     today) against GET /v1/farm/{farm}/withdrawals?as_of=today&take=500, which also holds
//     each line's treatments.
//   - withdrawals/same: Farm.withdrawals with the treatments REST gives (withdrawalsSameFields).
//
// Both sides run as the farm's owner through the whole HTTP stack of one app, and the test
// client reads each answer's bytes without decoding them (the same client work both ways).
// GQLCOST_SHOW=1 with -v logs both answers of each pair.
func restPairs(tb testing.TB) []restPair {
	today := func(s *screensFarm) string { return s.today }
	register := func(s *screensFarm) map[string]any {
		return map[string]any{"farmID": s.Farm.String(), "first": 50, "asOf": today(s)}
	}
	withdrawals := func(s *screensFarm) map[string]any {
		return map[string]any{"farmID": s.Farm.String(), "asOf": today(s)}
	}
	restRegister := func(s *screensFarm) string {
		return "/v1/farm/" + s.Farm.String() + "/animals?as_of=" + today(s) + "&take=50"
	}
	restWithdrawals := func(s *screensFarm) string {
		return "/v1/farm/" + s.Farm.String() + "/withdrawals?as_of=" + today(s) + "&take=500"
	}
	gqlRegisterIDs := func(tb testing.TB, body []byte) []string {
		var out struct {
			Data struct {
				Farm struct {
					Animals struct {
						Edges []struct{ Node struct{ ID string } }
					}
				}
			}
		}
		decode(tb, body, &out)
		var ids []string
		for _, e := range out.Data.Farm.Animals.Edges {
			ids = append(ids, e.Node.ID)
		}
		return ids
	}
	restRecordIDs := func(key string) func(tb testing.TB, body []byte) []string {
		return func(tb testing.TB, body []byte) []string {
			var out struct{ Records []map[string]any }
			decode(tb, body, &out)
			var ids []string
			for _, r := range out.Records {
				ids = append(ids, r[key].(string))
			}
			return ids
		}
	}
	gqlWithdrawalIDs := func(tb testing.TB, body []byte) []string {
		var out struct {
			Data struct {
				Farm struct {
					Withdrawals struct{ Nodes []struct{ AnimalID string } }
				}
			}
		}
		decode(tb, body, &out)
		var ids []string
		for _, n := range out.Data.Farm.Withdrawals.Nodes {
			ids = append(ids, n.AnimalID)
		}
		return ids
	}
	return []restPair{
		{"register50/app", appOperation(tb, "register.graphql", "Register"), register, restRegister, gqlRegisterIDs, restRecordIDs("id"), true},
		{"register50/same", registerSameFields, register, restRegister, gqlRegisterIDs, restRecordIDs("id"), false},
		{"animal", animalSameFields,
			func(s *screensFarm) map[string]any { return map[string]any{"id": s.cow.String(), "asOf": today(s)} },
			func(s *screensFarm) string {
				return "/v1/farm/" + s.Farm.String() + "/animals/" + s.cow.String() + "?as_of=" + today(s)
			},
			func(tb testing.TB, body []byte) []string {
				var out struct {
					Data struct {
						Node struct{ ID, MeatClearOn string }
					}
				}
				decode(tb, body, &out)
				return []string{out.Data.Node.ID}
			},
			func(tb testing.TB, body []byte) []string {
				var out struct{ ID string }
				decode(tb, body, &out)
				return []string{out.ID}
			}, false},
		{"withdrawals/app", appOperation(tb, "animal.graphql", "AnimalWithdrawal"), withdrawals, restWithdrawals, gqlWithdrawalIDs, restRecordIDs("animal_id"), false},
		{"withdrawals/same", withdrawalsSameFields, withdrawals, restWithdrawals, gqlWithdrawalIDs, restRecordIDs("animal_id"), false},
	}
}

// shared is a's ids that b holds too, in a's order.
func shared(a, b []string) []string {
	var out []string
	for _, id := range a {
		if slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	return out
}

func decode(tb testing.TB, body []byte, v any) {
	tb.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		tb.Fatalf("%v: %s", err, body)
	}
}

// side is one way of asking: its request, timed.
type side struct {
	do    func() []byte
	times []time.Duration
	cpu   time.Duration
	stmts int64
}

// run sends the request once, adding its wall time, the process's CPU and the statements.
func (sd *side) run(app *herdbooktest.App) {
	q0, c0, t0 := app.DB.Queries(), cpuTime(), time.Now()
	sd.do()
	sd.times = append(sd.times, time.Since(t0))
	sd.cpu += cpuTime() - c0
	sd.stmts += app.DB.Queries() - q0
}

func (sd *side) p50() time.Duration {
	slices.Sort(sd.times)
	return sd.times[len(sd.times)/2]
}

// BenchmarkGraphQLAgainstREST asks each screen's data that a REST call answers too
// (restPairs: the register page of 50, the animal page's animal and profile, the withdrawal
// board) both ways on the screens farm of 10,000 animals (newScreensFarm), on SQLite and
// PostgreSQL, the two ways taken in turn in each iteration so that the machine's load falls
// on both alike. It reports for each side the process's CPU a request (gql-cpu-ms/op,
// rest-cpu-ms/op: cpuTime, the whole process, test client included), the median wall time
// (gql-p50-ms, rest-p50-ms) and the statements (gql-stmts/op, rest-stmts/op), and
// gql/rest-cpu, the ratio issue 32.3 holds to at most 1.3.
//
//	go test -run '^$' -bench GraphQLAgainstREST -benchtime 200x ./graph/
func BenchmarkGraphQLAgainstREST(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			s := newScreensFarm(b, app, 10000)
			for _, p := range restPairs(b) {
				vars, path := p.vars(s), p.rest(s)
				gql := &side{do: func() []byte {
					res := app.Do("POST", "/graphql", s.owner.Token, map[string]any{"query": p.query, "variables": vars})
					if res.Status != http.StatusOK || bytes.Contains(res.Body, []byte(`"errors"`)) {
						b.Fatalf("graphql answered %d: %s", res.Status, res.Body)
					}
					return res.Body
				}}
				rest := &side{do: func() []byte {
					res := app.Do("GET", path, s.owner.Token, nil)
					if res.Status != http.StatusOK {
						b.Fatalf("GET %s answered %d: %s", path, res.Status, res.Body)
					}
					return res.Body
				}}
				// The same data: the same animals in the same order.
				g, r := p.gqlIDs(b, gql.do()), p.restIDs(b, rest.do())
				if p.byTag {
					g, r = shared(g, r), shared(r, g)
					slices.Sort(g)
					slices.Sort(r)
				}
				if !slices.Equal(g, r) || len(g) == 0 || p.byTag && len(g) < 48 {
					b.Fatalf("%s: GraphQL answers %v, REST %v", p.name, g, r)
				}
				if os.Getenv("GQLCOST_SHOW") != "" {
					b.Logf("%s\nGraphQL: %s\nREST: %s", p.name, gql.do(), rest.do())
				}
				b.Run(p.name, func(b *testing.B) {
					for _, sd := range []*side{gql, rest} { // warm: pools, prepared statements, kept answers
						sd.do()
						sd.times, sd.cpu, sd.stmts = nil, 0, 0
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if i%2 == 0 {
							gql.run(app)
							rest.run(app)
						} else {
							rest.run(app)
							gql.run(app)
						}
					}
					b.StopTimer()
					n := float64(b.N)
					ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
					b.ReportMetric(ms(gql.cpu)/n, "gql-cpu-ms/op")
					b.ReportMetric(ms(rest.cpu)/n, "rest-cpu-ms/op")
					b.ReportMetric(ms(gql.p50()), "gql-p50-ms")
					b.ReportMetric(ms(rest.p50()), "rest-p50-ms")
					b.ReportMetric(float64(gql.stmts)/n, "gql-stmts/op")
					b.ReportMetric(float64(rest.stmts)/n, "rest-stmts/op")
					if rest.cpu > 0 {
						b.ReportMetric(float64(gql.cpu)/float64(rest.cpu), "gql/rest-cpu")
					}
				})
			}
		})
	}
}
