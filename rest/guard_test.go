package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestDepartureGuardEveryPath enumerates every write path that can carry a departure (a
// sale, a movement off the farm, a death with slaughter) and proves each reaches the one
// guard of the service layer: refused (409 WithdrawalError over REST, CONFLICT in GraphQL)
// while the animal's meat withdrawal runs; a sale or a movement passes with the
// acknowledgement, which the answer names as the transport spells it; a slaughter for food is
// refused whatever the acknowledgement (Regulation (EC) 853/2004 Annex II Section III: the
// slaughterhouse is told the medicines given within the withdrawal period, because meat
// from an animal inside it may not enter the food chain; GB VMR 2013 reg. 17–19 for the
// record; issue 20 item 6). The CSV import cannot carry a departure: its status column is the
// export's and is not read (TestImportAnimals covers the columns it reads).
func TestDepartureGuardEveryPath(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Guarded Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "UTC"}) // bare dates are the farm's local days
		farm := f.ID.String()
		base := "/v1/farm/" + farm
		med := mustCreate(t, app, base+"/medicines", owner.Token, map[string]any{"name": "Penicillin", "withdrawal_meat_days": 10, "withdrawal_milk_hours": 0})
		n := 0
		// treated returns a new animal treated on 2026-05-01: meat clears on 2026-05-11.
		treated := func(t *testing.T) string {
			n++
			a := app.MustAnimal(owner, f.ID, fmt.Sprintf("T%02d", n)).ID.String()
			if res := fact(app, f.ID, owner.Token, []string{a}, map[string]any{"kind": "treatment", "medicine_id": med["id"],
				"animal_id": a, "date": "2026-05-01"}, false); res.Status != http.StatusCreated {
				t.Fatalf("treatment: %d %s", res.Status, res.Body)
			}
			return a
		}
		const day = "2026-05-06"
		departures := map[string]func(a string) map[string]any{
			"sale": func(a string) map[string]any { return map[string]any{"kind": "sale", "animal_id": a, "date": day} },
			"movement_out": func(a string) map[string]any {
				return map[string]any{"kind": "movement_out", "animal_id": a, "date": day}
			},
			"slaughter": func(a string) map[string]any {
				return map[string]any{"kind": "death", "animal_id": a, "date": day, "slaughter": true}
			},
		}
		record := func(a string, fact map[string]any) map[string]any {
			return map[string]any{"animal_ids": []string{a}, "name": "Leaves", "type": "MOVEMENT", "applied_at": day + "T10:00:00Z",
				"record_items": []map[string]any{{"metadata": map[string]any{"birth_history": fact}}}}
		}
		graphItems := func(fact map[string]any) []map[string]any {
			return []map[string]any{{"name": "Leaves", "metadata": map[string]any{"birth_history": fact}}}
		}
		// A write path: do sends the departure of kind for animal a, acknowledged or not, and
		// reports whether it was written, refused by the guard, or failed otherwise.
		type outcome string
		const (
			written outcome = "written"
			refused outcome = "refused"
		)
		restDo := func(t *testing.T, res herdbooktest.Response, ack bool) outcome {
			t.Helper()
			switch res.Status {
			case http.StatusCreated, http.StatusOK:
				return written
			case http.StatusConflict:
				body := string(res.Body)
				if !strings.Contains(body, "WithdrawalError") || !strings.Contains(body, "2026-05-11") {
					t.Fatalf("409 is not the guard's: %s", body)
				}
				if !ack && !strings.Contains(body, "slaughtered for food") && !strings.Contains(body, `\"acknowledge_withdrawal\": true`) {
					t.Fatalf("the REST refusal does not name acknowledge_withdrawal: %s", body)
				}
				return refused
			}
			t.Fatalf("unexpected answer %d %s", res.Status, res.Body)
			return ""
		}
		graphDo := func(t *testing.T, out map[string]any, ack bool) outcome {
			t.Helper()
			errs, _ := out["errors"].([]any)
			if len(errs) == 0 {
				return written
			}
			e := errs[0].(map[string]any)
			code := e["extensions"].(map[string]any)["code"]
			msg := fmt.Sprint(e["message"], e["extensions"])
			if code != "WITHDRAWAL" || !strings.Contains(msg, "2026-05-11") {
				t.Fatalf("GraphQL error is not the guard's: %v", out)
			}
			if !ack && !strings.Contains(msg, "slaughtered for food") && !strings.Contains(msg, "acknowledgeWithdrawal: true") {
				t.Fatalf("the GraphQL refusal does not name acknowledgeWithdrawal: %v", out)
			}
			return refused
		}
		paths := []struct {
			name  string
			kinds []string // the departures the path can carry
			do    func(t *testing.T, kind, a string, ack bool) outcome
		}{
			{"REST POST records", []string{"sale", "movement_out", "slaughter"}, func(t *testing.T, kind, a string, ack bool) outcome {
				body := record(a, departures[kind](a))
				if ack {
					body["acknowledge_withdrawal"] = true
				}
				return restDo(t, app.Do("POST", base+"/records", owner.Token, body), ack)
			}},
			{"REST PUT records (appended item)", []string{"sale", "movement_out", "slaughter"}, func(t *testing.T, kind, a string, ack bool) outcome {
				rec := mustCreate(t, app, base+"/records", owner.Token, map[string]any{"animal_ids": []string{a}, "name": "Note", "type": "OTHER", "applied_at": day + "T09:00:00Z"})
				body := map[string]any{"record_items": []map[string]any{{"metadata": map[string]any{"birth_history": departures[kind](a)}}}}
				if ack {
					body["acknowledge_withdrawal"] = true
				}
				return restDo(t, app.Do("PUT", base+"/records/"+rec["id"].(string), owner.Token, body), ack)
			}},
			{"GraphQL recordCreate", []string{"sale", "movement_out", "slaughter"}, func(t *testing.T, kind, a string, ack bool) outcome {
				return graphDo(t, app.GraphQL(owner.Token, `mutation($in: RecordCreateInput!) { recordCreate(input: $in) { record { id } } }`,
					map[string]any{"in": map[string]any{"farmID": farm, "animalIDs": []string{a}, "name": "Leaves", "type": "MOVEMENT",
						"appliedAt": day + "T10:00:00Z", "items": graphItems(departures[kind](a)), "acknowledgeWithdrawal": ack}}), ack)
			}},
			{"GraphQL recordUpdate", []string{"sale", "movement_out", "slaughter"}, func(t *testing.T, kind, a string, ack bool) outcome {
				rec := mustCreate(t, app, base+"/records", owner.Token, map[string]any{"animal_ids": []string{a}, "name": "Note", "type": "OTHER", "applied_at": day + "T09:00:00Z"})
				return graphDo(t, app.GraphQL(owner.Token, `mutation($in: RecordUpdateInput!) { recordUpdate(input: $in) { record { id } } }`,
					map[string]any{"in": map[string]any{"farmID": farm, "id": rec["id"], "items": graphItems(departures[kind](a)), "acknowledgeWithdrawal": ack}}), ack)
			}},
			{"GraphQL createRecord (deprecated)", []string{"sale", "movement_out", "slaughter"}, func(t *testing.T, kind, a string, ack bool) outcome {
				return graphDo(t, app.GraphQL(owner.Token, `mutation($f: ID!, $in: CreateRecordInput!) { createRecord(farmID: $f, input: $in) { id } }`,
					map[string]any{"f": farm, "in": map[string]any{"animalIDs": []string{a}, "name": "Leaves", "type": "MOVEMENT",
						"appliedAt": day + "T10:00:00Z", "items": graphItems(departures[kind](a)), "acknowledgeWithdrawal": ack}}), ack)
			}},
			{"GraphQL updateRecord (deprecated)", []string{"sale", "movement_out", "slaughter"}, func(t *testing.T, kind, a string, ack bool) outcome {
				rec := mustCreate(t, app, base+"/records", owner.Token, map[string]any{"animal_ids": []string{a}, "name": "Note", "type": "OTHER", "applied_at": day + "T09:00:00Z"})
				return graphDo(t, app.GraphQL(owner.Token, `mutation($f: ID!, $id: ID!, $in: UpdateRecordInput!) { updateRecord(farmID: $f, id: $id, input: $in) { id } }`,
					map[string]any{"f": farm, "id": rec["id"], "in": map[string]any{"items": graphItems(departures[kind](a)), "acknowledgeWithdrawal": ack}}), ack)
			}},
			{"GraphQL factCreate movement", []string{"movement_out"}, func(t *testing.T, kind, a string, ack bool) outcome {
				return graphDo(t, app.GraphQL(owner.Token, `mutation($in: FactCreateInput!) { factCreate(input: $in) { record { id } } }`,
					map[string]any{"in": map[string]any{"farmID": farm, "fact": map[string]any{"movement": map[string]any{"kind": "MOVEMENT_OUT", "animalID": a, "date": day}},
						"acknowledgeWithdrawal": ack}}), ack)
			}},
			{"GraphQL recordMovement (deprecated)", []string{"movement_out"}, func(t *testing.T, kind, a string, ack bool) outcome {
				return graphDo(t, app.GraphQL(owner.Token, `mutation($f: ID!, $in: MovementFactInput!) { recordMovement(farmID: $f, input: $in) { id } }`,
					map[string]any{"f": farm, "in": map[string]any{"kind": "MOVEMENT_OUT", "animalID": a, "date": day, "acknowledgeWithdrawal": ack}}), ack)
			}},
			{"GraphQL saleRecord", []string{"sale"}, func(t *testing.T, kind, a string, ack bool) outcome {
				return graphDo(t, app.GraphQL(owner.Token, `mutation($in: SaleRecordInput!) { saleRecord(input: $in) { record { id } } }`,
					map[string]any{"in": map[string]any{"farmID": farm, "animalID": a, "date": day, "acknowledgeWithdrawal": ack}}), ack)
			}},
			{"GraphQL deathRecord", []string{"slaughter"}, func(t *testing.T, kind, a string, ack bool) outcome {
				return graphDo(t, app.GraphQL(owner.Token, `mutation($in: DeathRecordInput!) { deathRecord(input: $in) { record { id } } }`,
					map[string]any{"in": map[string]any{"farmID": farm, "animalID": a, "date": day, "slaughter": true, "acknowledgeWithdrawal": ack}}), ack)
			}},
		}
		for _, p := range paths {
			for _, kind := range p.kinds {
				t.Run(p.name+"/"+kind, func(t *testing.T) {
					if got := p.do(t, kind, treated(t), false); got != refused {
						t.Fatalf("without acknowledgement: %s, want refused", got)
					}
					want := written
					if kind == "slaughter" {
						want = refused
					}
					if got := p.do(t, kind, treated(t), true); got != want {
						t.Fatalf("with acknowledgement: %s, want %s", got, want)
					}
				})
			}
		}
		t.Run("DeathThatIsNotASlaughterPasses", func(t *testing.T) {
			out := app.GraphQL(owner.Token, `mutation($in: DeathRecordInput!) { deathRecord(input: $in) { record { id } } }`,
				map[string]any{"in": map[string]any{"farmID": farm, "animalID": treated(t), "date": day}})
			if graphDo(t, out, false) != written {
				t.Fatalf("a death that is not a slaughter was refused: %v", out)
			}
		})
	})
}
