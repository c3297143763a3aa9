package graph_test

import (
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestPassportGraphQL (issue 29.6): Animal.passport answers as REST's GET …/passport does: an
// embryo-transfer calf on a GB holding with its genetic and surrogate dams, an AI sire from
// outside the farm and its breed coded LIMX; a cow bought in and sold with the holdings moved
// between and a breed CTS does not list (no code); as of a day before the sale; a bad asOf; an
// animal on a farm on no holding; a stranger.
func TestPassportGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		ctx := app.Ctx(owner)
		if _, err := app.Service.CreateHolding(ctx, f.ID, herdbook.HoldingInput{Scheme: new("uk.cph"), Identifier: new("34/123/1234"),
			KeeperName: new("Kari Nordmann"), RuleSet: new("gb_cts"), TimeZone: new("Europe/London")}); err != nil {
			t.Fatal(err)
		}
		recipient := app.MustAnimal(owner, f.ID, "UK 123456 100001").ID.String()
		donor := app.MustAnimal(owner, f.ID, "UK 123456 200002").ID.String()
		calf := app.MustAnimal(owner, f.ID, "UK 123456 300003").ID.String()
		cow := app.MustAnimal(owner, f.ID, "UK 654321 300001").ID.String()
		bull, err := app.Service.CreateOutsideAnimal(ctx, f.ID, herdbook.OutsideAnimalInput{Name: new("Ampertaler Ace"), Sex: new("male"),
			RegistrationNumber: new("UK581234500123")})
		if err != nil {
			t.Fatal(err)
		}
		// Each fact as a record through REST, linked to the farm's animals it names (an outside
		// sire is never linked to a record).
		for _, fact := range []map[string]any{
			{"kind": "profile", "animal_id": recipient, "sex": "female"},
			{"kind": "profile", "animal_id": donor, "sex": "female"},
			{"kind": "birth", "dam_id": recipient, "genetic_dam_id": donor, "sire_id": bull.ID.String(), "date": "2026-03-06", "offspring_ids": []string{calf}},
			{"kind": "profile", "animal_id": calf, "sex": "female", "breed": "Limousin Cross"},
			{"kind": "profile", "animal_id": cow, "sex": "female", "breed": "Angus"},
			{"kind": "purchase", "animal_id": cow, "date": "2026-03-16", "holding_scheme": "uk.cph", "holding_number": "12/345/6789"},
			{"kind": "sale", "animal_id": cow, "date": "2026-03-25", "holding_scheme": "uk.cph", "holding_number": "11/222/3333"},
		} {
			linked, _ := fact["animal_id"].(string)
			if linked == "" {
				linked = fact["dam_id"].(string)
			}
			res := app.Do("POST", "/v1/farm/"+f.ID.String()+"/records", owner.Token, map[string]any{"animal_ids": []string{linked}, "name": "fact",
				"type": "MOVEMENT", "applied_at": "2026-03-01T00:00:00Z", "record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": fact}}}})
			if res.Status != 201 {
				t.Fatalf("fact %v: %d %s", fact, res.Status, res.Body)
			}
		}
		const q = `query($id: ID!, $asOf: Date) { node(id: $id) { ... on Animal { passport(asOf: $asOf) { asOf officialTag birthDate sex
			breed breedCode breedScheme geneticDam { animalID outside tag } surrogateDam { tag } sire { animalID outside tag name registrationNumber }
			holding { scheme number } movements { event kind date from { number } to { number } disposal } } } } }`
		passport := func(token, id string, asOf any) map[string]any {
			t.Helper()
			out := app.GraphQL(token, q, map[string]any{"id": id, "asOf": asOf})
			wantNoErrors(t, out)
			return dig(t, out, "data.node.passport").(map[string]any)
		}
		p := passport(reader.Token, calf, "2026-03-20")
		if p["officialTag"] != "UK 123456 300003" || p["birthDate"] != "2026-03-06" || p["breedCode"] != "LIMX" || p["breedScheme"] != "uk.cts.breed" ||
			dig(t, p, "geneticDam.tag") != "UK 123456 200002" || dig(t, p, "geneticDam.outside") != false ||
			dig(t, p, "surrogateDam.tag") != "UK 123456 100001" || dig(t, p, "sire.outside") != true || dig(t, p, "sire.tag") != nil ||
			dig(t, p, "sire.name") != "Ampertaler Ace" || dig(t, p, "sire.registrationNumber") != "UK581234500123" ||
			dig(t, p, "holding.number") != "34/123/1234" || len(p["movements"].([]any)) != 1 ||
			dig(t, p, "movements.0.event") != "birth" || dig(t, p, "movements.0.to.number") != "34/123/1234" || dig(t, p, "movements.0.from") != nil {
			t.Fatalf("calf's passport: %v", p)
		}
		p = passport(reader.Token, cow, "2026-03-20")
		if p["breed"] != "Angus" || p["breedCode"] != nil || p["geneticDam"] != nil || p["sire"] != nil || len(p["movements"].([]any)) != 1 ||
			dig(t, p, "movements.0.kind") != "purchase" || dig(t, p, "movements.0.from.number") != "12/345/6789" {
			t.Fatalf("cow's passport on the 20th: %v", p)
		}
		p = passport(reader.Token, cow, nil)
		if len(p["movements"].([]any)) != 2 || dig(t, p, "movements.1.event") != "departure" || dig(t, p, "movements.1.to.number") != "11/222/3333" ||
			dig(t, p, "movements.1.from.number") != "34/123/1234" {
			t.Fatalf("cow's passport today: %v", p)
		}

		loose := app.MustFarm(owner, "Loose Farm")
		stray := app.MustAnimal(owner, loose.ID, "UK 123456 400004").ID.String()
		if p := passport(owner.Token, stray, nil); p["holding"] != nil || p["breedScheme"] != nil || p["officialTag"] != "UK 123456 400004" {
			t.Fatalf("on no holding: %v", p)
		}
		if out := app.GraphQL(reader.Token, q, map[string]any{"id": calf, "asOf": "2026-02-30"}); errorCode(out) != "BAD_USER_INPUT" {
			t.Fatalf("a bad asOf: %v", out)
		}
		if out := app.GraphQL(stranger.Token, q, map[string]any{"id": calf}); errorCode(out) != "NOT_FOUND" {
			t.Fatalf("a stranger: %v", out)
		}
	})
}
