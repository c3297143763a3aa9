package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/migrate"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// archiveFarm builds a season of a suckler herd through the API: settings, profiles with an
// official identifier, a purchase, a birth, weights, dated group memberships, a medicine
// with two label versions and a purchase, a treatment under withdrawal and an acknowledged
// sale inside it, a death, a calving preview approved with its tasks, a void, an amend and a
// backdated correction. It answers the moments between the corrections.
func archiveFarm(t *testing.T, app *herdbooktest.App, owner, editor herdbooktest.User, farmID string) (ids map[string]string, moments []string) {
	t.Helper()
	base := "/v1/farm/" + farmID
	ids = map[string]string{}
	wantStatus(t, app.Do("PUT", base+"/settings", owner.Token, map[string]any{"time_zone": "Europe/London", "minimum_calving_interval_days": 300}), 200)
	animal := func(body map[string]any) string {
		t.Helper()
		return wantStatus(t, app.Do("POST", base+"/animals", owner.Token, body), 201)["id"].(string)
	}
	record := func(u herdbooktest.User, animals []string, ack bool, facts ...map[string]any) string {
		t.Helper()
		items := make([]map[string]any, len(facts))
		for i, f := range facts {
			items[i] = map[string]any{"metadata": map[string]any{"birth_history": f}}
		}
		body := map[string]any{"animal_ids": animals, "name": fmt.Sprint(facts[0]["kind"]), "type": "OTHER",
			"applied_at": "2025-01-01T00:00:00Z", "record_items": items}
		if ack {
			body["acknowledge_withdrawal"] = true
		}
		return wantStatus(t, app.Do("POST", base+"/records", u.Token, body), 201)["id"].(string)
	}
	ids["cow1"] = animal(map[string]any{"tag": "COW1", "sex": "female", "birth_date": "2019-03-01", "breed": "Angus"})
	ids["cow2"] = animal(map[string]any{"tag": "COW2", "sex": "female", "birth_date": "2018-04-01"})
	ids["bull"] = animal(map[string]any{"tag": "BULL1", "sex": "male", "birth_date": "2020-04-01", "eid": "982000123456789"})
	ids["cow3"] = animal(map[string]any{"tag": "COW3", "sex": "female", "birth_date": "2020-05-01"})
	ids["calf"] = animal(map[string]any{"tag": "C1", "sex": "male", "birth_date": "2025-03-10", "dam_id": ids["cow1"], "sire_id": ids["bull"]})
	ids["herd"] = app.Do("POST", base+"/groups", owner.Token, map[string]any{"name": "Summer herd"}).JSON(t)["id"].(string)
	record(owner, []string{ids["cow3"]}, false, map[string]any{"kind": "purchase", "animal_id": ids["cow3"], "date": "2025-02-01"})
	record(owner, []string{ids["cow1"]}, false, map[string]any{"kind": "birth", "dam_id": ids["cow1"], "offspring_ids": []string{ids["calf"]}, "date": "2025-03-10"})
	record(owner, []string{ids["cow1"], ids["cow2"]}, false,
		map[string]any{"kind": "membership", "animal_id": ids["cow1"], "group_id": ids["herd"], "start_date": "2025-04-01", "end_date": "2025-09-30"},
		map[string]any{"kind": "membership", "animal_id": ids["cow2"], "group_id": ids["herd"], "start_date": "2025-04-15"})
	record(editor, []string{ids["calf"]}, false, map[string]any{"kind": "weight", "animal_id": ids["calf"], "date": "2025-03-11", "kg": 41})
	record(owner, []string{ids["calf"]}, false, map[string]any{"kind": "membership", "animal_id": ids["calf"], "group_id": ids["herd"], "start_date": "2025-06-01"})
	wrongWeight := record(editor, []string{ids["calf"]}, false, map[string]any{"kind": "weight", "animal_id": ids["calf"], "date": "2025-06-01", "kg": 910})
	med := mustCreate(t, app, base+"/medicines", owner.Token, map[string]any{"name": "Oxytetracycline LA", "withdrawal_meat_days": 28, "withdrawal_milk_hours": 168})
	ids["med"] = med["id"].(string)
	wantStatus(t, app.Do("PUT", base+"/medicines/"+ids["med"], owner.Token, map[string]any{"name": "Oxytetracycline LA", "withdrawal_meat_days": 35, "withdrawal_milk_hours": 168}), 200)
	mustCreate(t, app, base+"/medicine-purchases", owner.Token, map[string]any{"medicine_id": ids["med"], "batch": "B-77",
		"quantity": 100, "quantity_unit": "ml", "supplier_name": "Hill Vets Ltd", "supplier_address": "1 High Street, Hexham NE46 1AA",
		"purchased_on": "2025-04-20", "document_reference": "INV-2291", "expiry_date": "2027-06-30"})
	record(owner, []string{ids["cow2"]}, false, map[string]any{"kind": "treatment", "animal_id": ids["cow2"], "medicine_id": ids["med"], "date": "2025-05-01", "dose": 15, "unit": "ml", "batch": "B-77"})
	record(owner, []string{ids["cow1"]}, false, map[string]any{"kind": "treatment", "group_id": ids["herd"], "medicine_id": ids["med"], "date": "2025-05-02"})
	record(owner, []string{ids["cow2"]}, true, map[string]any{"kind": "sale", "animal_id": ids["cow2"], "date": "2025-05-10", "buyer": "Mart"})
	record(owner, []string{ids["cow3"]}, false, map[string]any{"kind": "death", "animal_id": ids["cow3"], "date": "2025-07-01", "cause": "bloat"})
	// A calving preview approved: a birth event and its follow-up tasks.
	wantStatus(t, app.Do("PUT", base+"/birth-history/protocol", owner.Token, `{"steps":[{"name":"Weigh calf","offset_days":1},{"name":"Tag calf","offset_days":3}]}`), 200)
	pv := wantStatus(t, app.Do("POST", base+"/birth-history/previews", owner.Token, map[string]any{"dam_id": ids["cow1"], "birth_date": "2025-03-10"}), 201)
	wantStatus(t, app.Do("POST", base+"/birth-history/previews/"+pv["id"].(string)+"/approve", owner.Token, map[string]any{"request_id": "calving-1", "calves": oneCalf("COW1-CALF")}), 201)
	archiveBreedingYear(t, app, owner, editor, base, ids, animal, record)

	moment := func() string {
		time.Sleep(5 * time.Millisecond)
		m := time.Now().UTC().Format(time.RFC3339Nano)
		time.Sleep(5 * time.Millisecond)
		return m
	}
	moments = append(moments, moment())
	wantStatus(t, app.Do("POST", base+"/records/"+wrongWeight+"/void", editor.Token, map[string]any{"reason": "Read off the wrong scale."}), 200)
	moments = append(moments, moment())
	late := record(owner, []string{ids["calf"]}, false, map[string]any{"kind": "weight", "animal_id": ids["calf"], "date": "2025-06-01", "kg": 95})
	wantStatus(t, app.Do("POST", base+"/records/"+late+"/amend", editor.Token, map[string]any{"reason": "Weighed on 2 June.",
		"record_items": []map[string]any{{"metadata": map[string]any{"birth_history": map[string]any{"kind": "weight", "animal_id": ids["calf"], "date": "2025-06-02", "kg": 96}}}}}), 201)
	moments = append(moments, moment())
	return ids, moments
}

// archiveBreedingYear adds issue 28's breeding year to archiveFarm's herd: outside animals (an
// AI sire with its registration number and semen batch, an embryo donor), a heat, an
// insemination, an embryo transfer, a hand mating, a bull's dated run with a cow, pregnancy
// checks, four calvings through the calving operation (twins by the home bull with one
// stillborn, an AI calf, an ET calf, a calf by natural service),
// a weaning, the breeding settings, and corrections: a voided and an amended pregnancy check.
func archiveBreedingYear(t *testing.T, app *herdbooktest.App, owner, editor herdbooktest.User, base string, ids map[string]string,
	animal func(map[string]any) string, record func(herdbooktest.User, []string, bool, ...map[string]any) string) {
	t.Helper()
	wantStatus(t, app.Do("PUT", base+"/settings", owner.Token, map[string]any{
		"calving_ease_scale": []map[string]any{{"code": "1", "label": "Unassisted"}, {"code": "2", "label": "Easy pull"}},
		"weaning_age_of_dam": []map[string]any{{"min_days": 730, "max_days": 1094, "male_kg": 27, "female_kg": 25}},
	}), 200)
	if res := app.Do("PUT", base+"/birth-history/settings", owner.Token, cattleSettings); res.Status != 200 {
		t.Fatalf("birth settings: %d %s", res.Status, res.Body)
	}
	wantStatus(t, app.Do("PUT", base+"/birth-history/protocol", owner.Token, map[string]any{"steps": []any{
		map[string]any{"name": "Check the dam", "offset_days": 1}, map[string]any{"name": "Castrate", "offset_days": 30, "sex": "male"}}}), 200)
	ids["aisire"] = wantStatus(t, app.Do("POST", base+"/outside-animals", owner.Token, map[string]any{"name": "Connealy Black Granite",
		"sex": "male", "breed": "Angus", "registry": "American Angus Association", "registration_number": "19000001", "batch": "7AN0123"}), 201)["id"].(string)
	ids["donor"] = wantStatus(t, app.Do("POST", base+"/outside-animals", owner.Token, map[string]any{"name": "Queen of Hearts 42",
		"sex": "female", "breed": "Angus", "registration_number": "18000042", "birth_date": "2017-02-14"}), 201)["id"].(string)
	ids["cow4"] = animal(map[string]any{"tag": "COW4", "sex": "female", "birth_date": "2021-03-01", "breed": "Angus"})
	ids["cow5"] = animal(map[string]any{"tag": "COW5", "sex": "female", "birth_date": "2021-04-01"})
	ids["cow6"] = animal(map[string]any{"tag": "COW6", "sex": "female", "birth_date": "2022-03-15"})
	record(owner, []string{ids["cow4"]}, false, map[string]any{"kind": "heat", "animal_id": ids["cow4"], "date": "2025-07-11"})
	record(editor, []string{ids["cow4"]}, false, map[string]any{"kind": "insemination", "dam_id": ids["cow4"], "sire_id": ids["aisire"],
		"date": "2025-07-12", "straw": "7AN0123-44", "technician": "J. Byrne"})
	record(owner, []string{ids["cow5"]}, false, map[string]any{"kind": "embryo_transfer", "dam_id": ids["donor"], "sire_id": ids["aisire"],
		"recipient_id": ids["cow5"], "date": "2025-07-01", "embryo": "IVF-1"})
	record(owner, []string{ids["cow6"]}, false, map[string]any{"kind": "hand_mating", "dam_id": ids["cow6"], "sire_id": ids["bull"], "date": "2025-07-20"})
	wrongScan := record(editor, []string{ids["cow4"]}, false, map[string]any{"kind": "pregnancy_check", "animal_id": ids["cow4"],
		"date": "2025-09-05", "method": "scan", "result": "empty"})
	wantStatus(t, app.Do("POST", base+"/records/"+wrongScan+"/void", editor.Token, map[string]any{"reason": "Another cow's scan."}), 200)
	scan := record(editor, []string{ids["cow5"], ids["cow6"]}, false,
		map[string]any{"kind": "pregnancy_check", "animal_id": ids["cow5"], "date": "2025-09-05", "method": "scan", "result": "pregnant", "foetal_age_days": 66},
		map[string]any{"kind": "pregnancy_check", "animal_id": ids["cow6"], "date": "2025-09-05", "method": "palpation", "result": "recheck"})
	wantStatus(t, app.Do("POST", base+"/records/"+scan+"/amend", editor.Token, map[string]any{"reason": "COW6 was scanned too.",
		"record_items": []map[string]any{
			{"metadata": map[string]any{"birth_history": map[string]any{"kind": "pregnancy_check", "animal_id": ids["cow5"], "date": "2025-09-05", "method": "scan", "result": "pregnant", "foetal_age_days": 66}}},
			{"metadata": map[string]any{"birth_history": map[string]any{"kind": "pregnancy_check", "animal_id": ids["cow6"], "date": "2025-09-05", "method": "scan", "result": "pregnant"}}}}}), 201)
	record(editor, []string{ids["cow4"]}, false, map[string]any{"kind": "pregnancy_check", "animal_id": ids["cow4"], "date": "2025-09-05", "method": "scan", "result": "pregnant"})
	calve := func(name string, body map[string]any) {
		t.Helper()
		res := app.Do("POST", base+"/calvings", owner.Token, body)
		if res.Status != 201 {
			t.Fatalf("calving %s: %d %s", name, res.Status, res.Body)
		}
		cv := res.JSON(t)
		ids[name] = cv["id"].(string)
		for i, c := range cv["calves"].([]any) {
			ids[fmt.Sprintf("%s.calf%d", name, i)] = c.(map[string]any)["animal_id"].(string)
		}
	}
	// Twins by the home bull, his hand mating recorded: one alive, one stillborn.
	calve("twins", map[string]any{"dam_id": ids["cow6"], "date": "2026-05-01", "sire_id": ids["bull"], "sire_basis": "service", "calves": []any{
		map[string]any{"tag": "T-1", "sex": "male", "birth_weight": 38.5, "status": "alive", "twin": true, "calving_ease": "2"},
		map[string]any{"tag": "T-2", "sex": "female", "birth_weight": 31, "status": "stillborn", "twin": true}}})
	// The AI calf and the ET calf name the outside sire, on the insemination and the
	// transfer (issue 28.1); the ET calf's genetic dam is the transfer's outside donor, and
	// its surrogate the cow that calved (issue 28.7).
	calve("ai", map[string]any{"dam_id": ids["cow4"], "date": "2026-04-20", "sire_id": ids["aisire"], "sire_basis": "service", "calves": []any{
		map[string]any{"tag": "AI-1", "eid": "982000123456700", "sex": "female", "birth_weight": 36, "status": "alive", "calving_ease": "1"}}})
	calve("et", map[string]any{"dam_id": ids["cow5"], "date": "2026-04-10", "sire_id": ids["aisire"], "sire_basis": "service", "calves": []any{
		map[string]any{"tag": "ET-1", "sex": "male", "birth_weight": 41, "status": "alive", "genetic_dam_id": ids["donor"]}}})
	// Natural service (issue 28.1): BULL1 ran with COW7 in the bull paddock, dated in and
	// out, over her conception window (2025-07-04 to 2025-07-17 for a calving on 2026-04-22
	// under gestation 279 to 292 days); her calving names him on that basis.
	ids["cow7"] = animal(map[string]any{"tag": "COW7", "sex": "female", "birth_date": "2021-05-01", "breed": "Angus"})
	ids["paddock"] = wantStatus(t, app.Do("POST", base+"/groups", owner.Token, map[string]any{"name": "Bull paddock"}), 201)["id"].(string)
	record(owner, []string{ids["bull"], ids["cow7"]}, false,
		map[string]any{"kind": "membership", "animal_id": ids["bull"], "group_id": ids["paddock"], "start_date": "2025-06-25", "end_date": "2025-08-10"},
		map[string]any{"kind": "membership", "animal_id": ids["cow7"], "group_id": ids["paddock"], "start_date": "2025-06-20"})
	calve("ns", map[string]any{"dam_id": ids["cow7"], "date": "2026-04-22", "sire_id": ids["bull"], "sire_basis": "natural_service", "calves": []any{
		map[string]any{"tag": "NS-1", "sex": "female", "birth_weight": 35, "status": "alive", "calving_ease": "1"}}})
	record(owner, []string{ids["ai.calf0"]}, false, map[string]any{"kind": "weaning", "animal_id": ids["ai.calf0"], "date": "2026-10-20",
		"kg": 240, "group_id": ids["herd"]})
}

// archiveIDs lists every id of an archive in its order: two archives of the same farm
// (before and after a round trip) list their rows in the same order, so zipping the lists
// gives the id map.
func archiveIDs(t *testing.T, body []byte) []string {
	t.Helper()
	var a herdbook.Archive
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	out := []string{a.Farm.ID.String()}
	for _, x := range a.AnimalSets {
		out = append(out, x.ID.String())
	}
	for _, x := range a.Animals {
		out = append(out, x.ID.String())
	}
	for _, x := range a.OutsideAnimals {
		out = append(out, x.ID.String())
	}
	for _, x := range a.Files {
		out = append(out, x.ID.String())
	}
	for _, x := range a.Medicines {
		out = append(out, x.ID.String())
	}
	for _, x := range a.MedicineVersions {
		out = append(out, x.ID.String())
	}
	for _, x := range a.MedicinePurchases {
		out = append(out, x.ID.String())
	}
	for _, x := range a.Records {
		out = append(out, x.ID.String())
	}
	for _, x := range a.Events {
		out = append(out, x.ID.String())
		for _, l := range x.FactAnimals {
			out = append(out, l.ID.String())
		}
		for _, r := range x.Reach {
			out = append(out, r.ID.String())
		}
	}
	for _, x := range a.BirthSettings {
		out = append(out, x.ID.String())
	}
	for _, x := range a.Protocols {
		out = append(out, x.ID.String())
	}
	for _, x := range a.BirthPreviews {
		out = append(out, x.ID.String())
	}
	for _, x := range a.BirthEvents {
		out = append(out, x.ID.String())
	}
	for _, x := range a.Tasks {
		out = append(out, x.ID.String())
	}
	for _, x := range a.Audit {
		out = append(out, x.ID.String())
	}
	return out
}

func mapIDs(s string, m map[string]string) string {
	pairs := make([]string, 0, 2*len(m))
	for o, n := range m {
		pairs = append(pairs, o, n)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// TestFarmArchiveRoundTrip covers issue 19, deliver item 6: a farm exported and imported
// into a new farm answers the same register, withdrawals, medicine book (The Veterinary
// Medicines Regulations 2013, reg. 19: the records an inspector reads), evidence review and
// audit trail (Regulation (EU) 2019/2035, art. 102: amendments with old and new values, user,
// date and reason) on every date and as known at every moment, ids mapped.
func TestFarmArchiveRoundTrip(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Archive Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		ids, moments := archiveFarm(t, app, owner, editor, f.ID.String())
		base := "/v1/farm/" + f.ID.String()

		res := app.Do("GET", base+"/archive", owner.Token, nil)
		if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("export: %d %s", res.Status, res.Body)
		}
		archive := res.Body
		var a herdbook.Archive
		if err := json.Unmarshal(archive, &a); err != nil {
			t.Fatal(err)
		}
		t.Run("ICARVocabulary", func(t *testing.T) {
			types := map[string]int{}
			for _, e := range a.Events {
				types[e.ResourceType]++
			}
			for _, want := range []string{"icarMovementBirthEventResource", "icarMovementDeathEventResource", "icarMovementDepartureEventResource",
				"icarMovementArrivalEventResource", "icarWeightEventResource", "icarTreatmentEventResource", "icarAnimalSetJoinEventResource"} {
				if types[want] == 0 {
					t.Errorf("no %s among the events: %v", want, types)
				}
			}
			var bull *herdbook.ArchiveAnimal
			for i := range a.Animals {
				if a.Animals[i].ManagementTag == "BULL1" {
					bull = &a.Animals[i]
				}
			}
			if bull == nil || bull.ResourceType != "icarAnimalCoreResource" || bull.Gender != "Male" || bull.BirthDate != "2020-04-01" ||
				bull.Specie != "Cattle" || len(bull.AlternativeIdentifiers) == 0 || bull.AlternativeIdentifiers[0].ID != "982000123456789" {
				t.Fatalf("the bull as an ICAR animal: %+v", bull)
			}
			if len(a.MedicineVersions) != 2 || len(a.MedicinePurchases) != 1 || a.MedicinePurchases[0].ResourceType != "icarMedicineTransactionResource" ||
				len(a.Tasks) != 8 || len(a.BirthEvents) != 5 || len(a.Audit) == 0 {
				t.Fatalf("versions %d, purchases %d, tasks %d, births %d, audit %d", len(a.MedicineVersions), len(a.MedicinePurchases),
					len(a.Tasks), len(a.BirthEvents), len(a.Audit))
			}
		})

		t.Run("ICARBreeding", func(t *testing.T) {
			// Outside animals as ICAR animals with their registration numbers; services as
			// icarReproInseminationEventResource (an embryo transfer is an Implantation, ICAR's
			// insemination resource "including embryo transfer"); calvings as
			// icarReproParturitionEventResource with their progeny.
			if len(a.OutsideAnimals) != 2 {
				t.Fatalf("outside animals: %+v", a.OutsideAnimals)
			}
			ai := a.OutsideAnimals[0]
			if ai.ResourceType != "icarAnimalCoreResource" || ai.Identifier.Scheme != herdbook.ArchiveOutsideAnimalScheme || ai.Gender != "Male" ||
				ai.OfficialName != "Connealy Black Granite" || len(ai.AlternativeIdentifiers) != 1 ||
				ai.AlternativeIdentifiers[0] != (herdbook.ICARIdentifier{ID: "19000001", Scheme: "American Angus Association"}) ||
				ai.Batch == nil || *ai.Batch != "7AN0123" {
				t.Fatalf("the AI sire: %+v", ai)
			}
			if d := a.OutsideAnimals[1]; d.AlternativeIdentifiers[0].Scheme != herdbook.ArchiveRegistrationScheme || d.BirthDate != "2017-02-14" {
				t.Fatalf("the donor: %+v", d)
			}
			if a.Settings == nil || !strings.Contains(string(a.Settings.CalvingEaseScale), "Easy pull") || !strings.Contains(string(a.Settings.WeaningAgeOfDam), "730") {
				t.Fatalf("breeding settings: %+v", a.Settings)
			}
			byKind := map[string]herdbook.ArchiveEvent{}
			var births []herdbook.ArchiveEvent
			for _, e := range a.Events {
				if e.FactKind != nil {
					byKind[*e.FactKind] = e
				} else if e.ResourceType == "icarReproParturitionEventResource" {
					births = append(births, e)
				}
			}
			in := byKind["insemination"]
			if in.ResourceType != "icarReproInseminationEventResource" || in.InseminationType != "Insemination" || in.Straw == nil ||
				in.Straw.Batch != "7AN0123-44" || len(in.SireIdentifiers) != 2 || in.SireIdentifiers[0].ID != ids["aisire"] ||
				in.SireIdentifiers[1].ID != "19000001" || in.Animal == nil || in.Animal.ID != ids["cow4"] {
				t.Fatalf("insemination: %+v", in)
			}
			et := byKind["embryo_transfer"]
			if et.ResourceType != "icarReproInseminationEventResource" || et.InseminationType != "Implantation" || et.Embryo == nil ||
				len(et.Embryo.DonorIdentifiers) != 2 || et.Embryo.DonorIdentifiers[0].ID != ids["donor"] || et.Embryo.SireOfficialName != "Connealy Black Granite" ||
				et.Animal.ID != ids["cow5"] {
				t.Fatalf("embryo transfer: %+v", et)
			}
			if hm := byKind["hand_mating"]; hm.InseminationType != "NaturalService" || hm.SireIdentifiers[0].ID != ids["bull"] {
				t.Fatalf("hand mating: %+v", hm)
			}
			if pc := byKind["pregnancy_check"]; pc.ResourceType != "icarReproPregnancyCheckEventResource" || pc.Method != "Echography" || pc.Result == "" {
				t.Fatalf("pregnancy check: %+v", pc)
			}
			if h := byKind["heat"]; h.ResourceType != "icarReproHeatEventResource" {
				t.Fatalf("heat: %+v", h)
			}
			if w := byKind["weaning"]; w.ResourceType != "herdbook:WeaningEvent" || w.Weight == nil || w.Weight.Measurement != "240" {
				t.Fatalf("weaning: %+v", w)
			}
			// The approved preview's calving (COW1-CALF: approving a birth records its
			// calving) and the four calvings recorded by POST …/calvings.
			if len(births) != 5 {
				t.Fatalf("%d parturitions", len(births))
			}
			if ap := births[0]; ap.Animal.ID != ids["cow1"] || *ap.TotalProgeny != 1 {
				t.Fatalf("the approved birth's calving: %+v", ap)
			}
			tw := births[1]
			if tw.Animal.ID != ids["cow6"] || *tw.TotalProgeny != 2 || *tw.LiveProgeny != 1 || len(tw.ProgenyDetails) != 2 ||
				tw.ProgenyDetails[1].BirthStatus != "Stillborn" || tw.ProgenyDetails[0].Gender != "Male" ||
				tw.ProgenyDetails[0].BirthWeight.Measurement != "38.5" || tw.ProgenyDetails[0].Identifier.ID != ids["twins.calf0"] {
				t.Fatalf("the twins' calving: %+v", tw)
			}
			// The calves' ICAR parentage: the twin bull calf's dam and recorded sire.
			for _, an := range a.Animals {
				if an.ID.String() != ids["twins.calf0"] {
					continue
				}
				want := []herdbook.ICARParent{
					{ParentOf: an.Identifier, Gender: "Female", Relation: "Genetic", Identifier: herdbook.ICARIdentifier{ID: ids["cow6"], Scheme: herdbook.ArchiveAnimalScheme}},
					{ParentOf: an.Identifier, Gender: "Male", Relation: "Genetic", Identifier: herdbook.ICARIdentifier{ID: ids["bull"], Scheme: herdbook.ArchiveAnimalScheme}}}
				if fmt.Sprint(an.Parentage) != fmt.Sprint(want) {
					t.Fatalf("parentage of T-1: %+v", an.Parentage)
				}
			}
			// The calving's record and its birth event share one id, by design.
			if tw.RecordID.String() != ids["twins"] {
				t.Fatalf("the twins' calving record %s, calving %s", tw.RecordID, ids["twins"])
			}
		})

		imp := app.Do("POST", "/v1/import", owner.Token, json.RawMessage(archive))
		if imp.Status != 201 {
			t.Fatalf("import: %d %s", imp.Status, imp.Body)
		}
		nf := imp.JSON(t)["farm"].(map[string]any)
		newID := nf["id"].(string)
		if newID == f.ID.String() || nf["name"] != "Archive Farm" {
			t.Fatalf("new farm %v", nf)
		}
		nbase := "/v1/farm/" + newID
		again := wantStatusBody(t, app.Do("GET", nbase+"/archive", owner.Token, nil), 200)
		oldIDs, newIDs := archiveIDs(t, archive), archiveIDs(t, again)
		if len(oldIDs) != len(newIDs) {
			t.Fatalf("%d ids exported, %d after the round trip", len(oldIDs), len(newIDs))
		}
		m := map[string]string{}
		for i := range oldIDs {
			if oldIDs[i] == newIDs[i] {
				t.Fatalf("id %s kept: every id is remapped", oldIDs[i])
			}
			m[oldIDs[i]] = newIDs[i]
		}

		t.Run("ArchiveIsLossless", func(t *testing.T) {
			// The archive of the new farm is the old one with the ids mapped.
			strip := func(b []byte) string {
				var v map[string]any
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatal(err)
				}
				delete(v, "exportedAt")
				out, _ := json.MarshalIndent(v, "", " ")
				return string(out)
			}
			if want, got := mapIDs(strip(archive), m), strip(again); want != got {
				t.Fatalf("archive after the round trip differs:\n%s", firstDiff(want, got))
			}
		})

		t.Run("SameAnswers", func(t *testing.T) {
			sameArchiveAnswers(t, app, owner.Token, base, app, owner.Token, nbase, archivePaths(ids, moments), m)
		})

		t.Run("AuditTrailCopiedNotRewritten", func(t *testing.T) {
			// The import writes no entry of its own: the trail is the old farm's.
			o := wantStatus(t, app.Do("GET", base+"/audit?take=1", owner.Token, nil), 200)["total"]
			n := wantStatus(t, app.Do("GET", nbase+"/audit?take=1", owner.Token, nil), 200)["total"]
			if o != n || o.(float64) < 10 {
				t.Fatalf("audit entries %v before, %v after", o, n)
			}
		})

		t.Run("Access", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/archive", "", nil), 401, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/archive", editor.Token, nil), 401, "Unauthorized", "needs the OWNER role")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/archive", stranger.Token, nil), 404, "ServiceError", "not found")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+ids["cow1"]+"/archive", owner.Token, nil), 404, "ServiceError", "not found")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/archive?with_files=maybe", owner.Token, nil), 400, "ValidationError", "with_files: must be true or false")
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/import", "", json.RawMessage(archive)), 401, "Unauthorized", "")
			narrow := app.MustUser(herdbook.ScopeReadFarms, herdbook.ScopeWriteFarms)
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/import", narrow.Token, json.RawMessage(archive)), 403, "ForbiddenError", "lacks the scope write:animals")
		})

		t.Run("RefusedArchivesWriteNothing", func(t *testing.T) {
			farms := func() int {
				n, err := d.Client.Farm.Query().Count(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			before := farms()
			edit := func(fn func(map[string]any)) json.RawMessage {
				var v map[string]any
				if err := json.Unmarshal(archive, &v); err != nil {
					t.Fatal(err)
				}
				fn(v)
				b, _ := json.Marshal(v)
				return b
			}
			first := func(v map[string]any, section string) map[string]any { return v[section].([]any)[0].(map[string]any) }
			for _, c := range []struct {
				name string
				body any
				msg  string
			}{
				{"Malformed", `{"format":"herdbook.farm-archive",`, "body"},
				{"NotAnObject", `[1,2]`, "body"},
				{"NoFormat", `{"formatVersion":1}`, "format: is required"},
				{"OtherFormat", `{"format":"icar","formatVersion":1}`, "format"},
				{"UnknownVersion", edit(func(v map[string]any) { v["formatVersion"] = 99 }), "formatVersion: is 99; this server reads versions 1 to 2"},
				{"VersionAsString", `{"format":"herdbook.farm-archive","formatVersion":"1"}`, "formatVersion"},
				{"UnknownProperty", edit(func(v map[string]any) { v["cows"] = 3 }), "cows: is not a property of this archive version"},
				{"WrongType", edit(func(v map[string]any) { first(v, "animals")["herdbook:tag"] = 7 }), "animals.herdbook:tag: must be a string"},
				{"BadID", edit(func(v map[string]any) { first(v, "animals")["id"] = "not-an-id" }), "body"},
				{"EmptyTag", edit(func(v map[string]any) { first(v, "animals")["herdbook:tag"] = "" }), "animals[0].herdbook:tag: must be 1 to 100 characters"},
				{"FarmName", edit(func(v map[string]any) { v["farm"].(map[string]any)["name"] = "" }), "farm.name"},
				{"Species", edit(func(v map[string]any) { v["farm"].(map[string]any)["herdbook:species"] = "PIG" }), "farm.species"},
				{"UnknownAnimal", edit(func(v map[string]any) {
					first(v, "herdbook:records")["animalIds"] = []any{"6f1c1c9e-6d7a-4c52-9a55-000000000001"}
				}), "herdbook:records[0].animalIds[0]: names animal 6f1c1c9e-6d7a-4c52-9a55-000000000001, which the archive does not hold"},
				{"DuplicateID", edit(func(v map[string]any) { first(v, "animalSets")["id"] = first(v, "animals")["id"] }), "animals[0].id: repeats the id of animalSets[0].id"},
				{"OtherFarmsRecord", edit(func(v map[string]any) { first(v, "events")["herdbook:recordId"] = ids["cow1"] }), "events[0].herdbook:recordId"},
				{"ControlChar", edit(func(v map[string]any) { first(v, "animals")["herdbook:name"] = "Daisy\x00" }), "animals[0].herdbook:name: must not contain control characters"},
				{"InvalidUTF8", string(append([]byte(`{"format":"herdbook.farm-archive","formatVersion":1,"farm":{"name":"`), 0xff, '"', '}', '}')), "body: must be valid UTF-8"},
				{"RecordType", edit(func(v map[string]any) { first(v, "herdbook:records")["type"] = "PARTY" }), "herdbook:records[0].type"},
				// The breeding year (issue 28).
				{"NoOutsideAnimals", edit(func(v map[string]any) { v["herdbook:outsideAnimals"] = []any{} }),
					"names animal " + ids["aisire"] + ", which the archive does not hold (in animals or herdbook:outsideAnimals)"},
				{"UnknownSireInFact", edit(func(v map[string]any) {
					ev := eventOfKind(v, "insemination")
					ev["herdbook:metadata"].(map[string]any)["birth_history"].(map[string]any)["sire_id"] = "6f1c1c9e-6d7a-4c52-9a55-000000000002"
				}), "herdbook:metadata.birth_history.sire_id: names animal 6f1c1c9e-6d7a-4c52-9a55-000000000002, which the archive does not hold"},
				{"UnknownCalf", edit(func(v map[string]any) {
					cv := calvingEvent(v)["herdbook:metadata"].(map[string]any)["calving"].(map[string]any)
					cv["calves"].([]any)[0].(map[string]any)["animal_id"] = "6f1c1c9e-6d7a-4c52-9a55-000000000003"
				}), "herdbook:metadata.calving.calves[0].animal_id: names animal 6f1c1c9e-6d7a-4c52-9a55-000000000003"},
				{"CalvingWithoutBirth", edit(func(v map[string]any) {
					id := calvingEvent(v)["herdbook:recordId"]
					keep := func(section, key string) {
						var out []any
						for _, x := range v[section].([]any) {
							if x.(map[string]any)[key] != id {
								out = append(out, x)
							}
						}
						v[section] = out
					}
					keep("herdbook:birthEvents", "id")
					keep("herdbook:tasks", "birthEventId")
					keep("herdbook:birthPreviews", "birthEventId")
				}), "is a calving whose birth (herdbook:birthEvents, the id of its record"},
				// A calving recorded by POST …/calvings (its birth's request id says so; an
				// approval's carries the client's own, and its record is found by the id).
				{"CalvingBirthWithoutRecord", edit(func(v map[string]any) {
					for _, x := range v["herdbook:birthEvents"].([]any) {
						if be := x.(map[string]any); strings.HasPrefix(be["requestId"].(string), "calving:") {
							be["id"] = "6f1c1c9e-6d7a-4c52-9a55-000000000004"
							return
						}
					}
					panic("no calving recorded by POST …/calvings")
				}), ".id: is a calving's birth, whose record (herdbook:records, the same id) the archive does not hold"},
				{"CalvingBirthTwice", edit(func(v map[string]any) {
					bs := v["herdbook:birthEvents"].([]any)
					bs[2].(map[string]any)["id"] = bs[1].(map[string]any)["id"]
				}), "herdbook:birthEvents[2].id: repeats the id of herdbook:records"},
				{"OutsideAnimalSex", edit(func(v map[string]any) { first(v, "herdbook:outsideAnimals")["herdbook:sex"] = "bull" }),
					"herdbook:outsideAnimals[0].herdbook:sex: must be male or female"},
				{"OutsideAnimalName", edit(func(v map[string]any) { first(v, "herdbook:outsideAnimals")["herdbook:name"] = "" }),
					"herdbook:outsideAnimals[0].herdbook:name"},
				{"OutsideAnimalWrongType", edit(func(v map[string]any) { first(v, "herdbook:outsideAnimals")["herdbook:batch"] = 7 }),
					"herdbook:outsideAnimals.herdbook:batch: must be a string"},
				{"CalvingEaseScale", edit(func(v map[string]any) { v["herdbook:settings"].(map[string]any)["calvingEaseScale"] = "1-5" }),
					"herdbook:settings.calvingEaseScale"},
				{"CalvingEaseScaleEmpty", edit(func(v map[string]any) { v["herdbook:settings"].(map[string]any)["calvingEaseScale"] = []any{} }),
					"herdbook:settings.calving_ease_scale"},
				{"Version1WithOutsideAnimals", edit(func(v map[string]any) { v["formatVersion"] = 1 }), "formatVersion: is 1"},
			} {
				t.Run(c.name, func(t *testing.T) {
					herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/import", owner.Token, c.body), 400, "ValidationError", c.msg)
				})
			}
			if after := farms(); after != before {
				t.Fatalf("%d farms before the refused imports, %d after", before, after)
			}
		})
	})
}

// archivePaths are the GET paths (under the farm) whose answers a moved farm must give
// again: the register, an animal and a group on many days and as known at every moment, the
// withdrawals, the medicine book, the birth evidence, the audit trail, tasks, medicines, and
// the breeding year: calvings, outside animals, services in the timeline, pedigrees,
// weights, the due list, the breeding CSV and the herd reports.
func archivePaths(ids map[string]string, moments []string) []string {
	known := append([]string{""}, moments...)
	var paths []string
	for _, day := range []string{"2025-01-15", "2025-03-10", "2025-04-20", "2025-05-05", "2025-06-15", "2025-08-01", "2026-01-01",
		"2026-04-15", "2026-05-02", "2026-11-01"} {
		for _, k := range known {
			q := "as_of=" + day
			if k != "" {
				q += "&known_at=" + url.QueryEscape(k)
			}
			paths = append(paths, "/animals?"+q, "/animals?status=not_yet&"+q, "/withdrawals?"+q,
				"/animals/"+ids["calf"]+"?"+q, "/groups/"+ids["herd"]+"?"+q)
		}
	}
	for _, k := range known {
		q := ""
		if k != "" {
			q = "&known_at=" + url.QueryEscape(k)
		}
		paths = append(paths, "/medicine-book.csv?from=2025-01-01"+q, "/medicine-book.csv?section=acquisitions&from=2025-01-01"+q,
			"/birth-history/evidence?dam_id="+ids["cow1"]+"&birth_date=2025-03-10"+q)
	}
	paths = append(paths, "/audit?take=100", "/audit?take=100&animal_id="+ids["calf"], "/farm-tasks", "/medicines",
		"/medicine-purchases", "/medicine-stock", "/animals/"+ids["calf"]+"/timeline")
	// The breeding year (issue 28).
	paths = append(paths, "/settings", "/birth-history/settings", "/birth-history/protocol", "/outside-animals",
		"/outside-animals/"+ids["aisire"], "/outside-animals/"+ids["donor"], "/calvings", "/calvings?from=2026-04-15",
		"/farm-tasks?take=100", "/audit?take=100&animal_id="+ids["cow4"], "/records?take=100", "/records.csv", "/animals.csv",
		"/breeding.csv", "/due", "/due.csv", "/animals?take=100&as_of=2026-11-01",
		"/kinship?a="+ids["twins.calf0"]+"&b="+ids["ai.calf0"],
		"/reports/calving?from=2026-01-01&to=2026-12-31&exposure_from=2025-05-01&exposure_to=2025-08-31",
		"/reports/calving-spread?from=2026-01-01&to=2026-12-31", "/reports/scans?from=2025-09-01&to=2025-10-31",
		"/reports/weaning?from=2026-09-01&to=2026-12-31", "/reports/gain?from=2026-01-01&to=2026-12-31")
	for _, c := range []string{"twins", "ai", "et", "ns"} {
		paths = append(paths, "/calvings/"+ids[c])
	}
	for _, dam := range []struct{ cow, day string }{{"cow6", "2026-05-01"}, {"cow4", "2026-04-20"}, {"cow5", "2026-04-10"}, {"cow7", "2026-04-22"}} {
		paths = append(paths, "/birth-history/evidence?dam_id="+ids[dam.cow]+"&birth_date="+dam.day)
	}
	for _, a := range []string{"twins.calf0", "twins.calf1", "ai.calf0", "et.calf0", "ns.calf0", "cow4", "cow5", "cow6", "cow7", "bull"} {
		paths = append(paths, "/animals/"+ids[a], "/animals/"+ids[a]+"/timeline", "/animals/"+ids[a]+"/pedigree",
			"/animals/"+ids[a]+"/weights")
	}
	return paths
}

// sameArchiveAnswers asks both farms every path and wants the same answer, ids mapped.
func sameArchiveAnswers(t *testing.T, from *herdbooktest.App, fromToken, base string, to *herdbooktest.App, toToken, nbase string,
	paths []string, m map[string]string, normalize ...func(string) string) {
	t.Helper()
	for _, p := range paths {
		before := from.Do("GET", base+p, fromToken, nil)
		after := to.Do("GET", nbase+mapIDs(p, m), toToken, nil)
		if before.Status != 200 {
			t.Fatalf("%s: %d %s", p, before.Status, before.Body)
		}
		want, got := noCursor(mapIDs(string(before.Body), m)), noCursor(string(after.Body))
		for _, n := range normalize {
			want, got = n(want), n(got)
		}
		if after.Status != 200 || want != got {
			t.Fatalf("GET %s after the move: %d\n%s", p, after.Status, firstDiff(want, got))
		}
	}
}

// eventOfKind is the first event of an edited archive whose fact is of kind.
func eventOfKind(v map[string]any, kind string) map[string]any {
	for _, x := range v["events"].([]any) {
		if ev := x.(map[string]any); ev["herdbook:factKind"] == kind {
			return ev
		}
	}
	panic("no " + kind + " event")
}

// calvingEvent is the first event of an edited archive that keeps a calving.
func calvingEvent(v map[string]any) map[string]any {
	for _, x := range v["events"].([]any) {
		ev := x.(map[string]any)
		if md, ok := ev["herdbook:metadata"].(map[string]any); ok && md["calving"] != nil {
			return ev
		}
	}
	panic("no calving event")
}

func wantStatusBody(t *testing.T, res herdbooktest.Response, status int) []byte {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	return res.Body
}

// firstDiff shows where two texts part.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-300)
	return fmt.Sprintf("want …%s…\ngot  …%s…", want[lo:min(len(want), i+300)], got[lo:min(len(got), i+300)])
}

// noCursor drops a change-feed cursor: it numbers the farm's changes, and the new farm's
// count starts again.
func noCursor(s string) string {
	var v map[string]any
	if json.Unmarshal([]byte(s), &v) != nil || v["next_cursor"] == nil {
		return s
	}
	delete(v, "next_cursor")
	b, _ := json.Marshal(v)
	return string(b)
}

var _ = http.StatusOK

// seedArchiveFarm gives a farm n animals, each with a record holding its profile fact (with
// its fact link) and one weight, written straight to the database.
func seedArchiveFarm(tb testing.TB, d *db.DB, farmID uuid.UUID, n int) {
	tb.Helper()
	herdbooktest.InTx(tb, d.Client, func(ctx context.Context, c *ent.Client) error {
		// An outside AI sire per ten animals, each animal inseminated by one (issue 28).
		sires := make([]uuid.UUID, n/10+1)
		outside := make([]*ent.OutsideAnimalCreate, len(sires))
		for i := range sires {
			sires[i] = uuid.New()
			outside[i] = c.OutsideAnimal.Create().SetID(sires[i]).SetFarmID(farmID).SetName(fmt.Sprintf("AI sire %d", i)).SetSex("male").
				SetRegistrationNumber(fmt.Sprintf("REG%06d", i)).SetBatch(fmt.Sprintf("B%d", i))
		}
		if err := c.OutsideAnimal.CreateBulk(outside...).Exec(ctx); err != nil {
			return err
		}
		for lo := 0; lo < n; lo += 200 {
			hi := min(n, lo+200)
			animals := make([]*ent.AnimalCreate, 0, hi-lo)
			records := make([]*ent.RecordCreate, 0, hi-lo)
			items := make([]*ent.RecordItemCreate, 0, 3*(hi-lo))
			var recLinks herdbook.RecordLinks
			links := make([]*ent.FactAnimalCreate, 0, 3*(hi-lo))
			for i := lo; i < hi; i++ {
				aid, rid, pid, wid := uuid.New(), uuid.New(), uuid.New(), uuid.New()
				animals = append(animals, c.Animal.Create().SetID(aid).SetFarmID(farmID).SetTag(fmt.Sprintf("UK%06d", i)))
				records = append(records, c.Record.Create().SetID(rid).SetFarmID(farmID).SetType("OTHER").SetName("profile").
					SetAppliedAt(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)))
				recLinks.Add(c, farmID, rid, []uuid.UUID{aid}, nil)
				md, _ := schematype.MetadataOf(map[string]any{"birth_history": map[string]any{"kind": "profile", "animal_id": aid.String(), "sex": "female", "birth_date": "2022-03-01"}})
				wd, _ := schematype.MetadataOf(map[string]any{"birth_history": map[string]any{"kind": "weight", "animal_id": aid.String(), "date": "2025-01-01", "kg": 400}})
				items = append(items,
					c.RecordItem.Create().SetID(pid).SetRecordID(rid).SetFarmID(farmID).SetMetadata(md).SetFactKind("profile").SetFactSubject(aid),
					c.RecordItem.Create().SetID(wid).SetRecordID(rid).SetFarmID(farmID).SetMetadata(wd).SetFactKind("weight").SetFactSubject(aid).SetFactDate("2025-01-01"))
				links = append(links, c.FactAnimal.Create().SetRecordItemID(pid).SetFarmID(farmID).SetAnimalID(aid))
				sire, iid := sires[i/10], uuid.New()
				id, _ := schematype.MetadataOf(map[string]any{"birth_history": map[string]any{"kind": "insemination", "dam_id": aid.String(),
					"sire_id": sire.String(), "date": "2025-07-01", "straw": "S-1"}})
				items = append(items, c.RecordItem.Create().SetID(iid).SetRecordID(rid).SetFarmID(farmID).SetMetadata(id).SetFactKind("insemination").
					SetFactSubject(sire).SetFactDam(aid).SetFactDate("2025-07-01"))
				links = append(links, c.FactAnimal.Create().SetRecordItemID(iid).SetFarmID(farmID).SetAnimalID(aid), c.FactAnimal.Create().SetRecordItemID(iid).SetFarmID(farmID).SetAnimalID(sire))
			}
			if err := c.Animal.CreateBulk(animals...).Exec(ctx); err != nil {
				return err
			}
			if err := c.Record.CreateBulk(records...).Exec(ctx); err != nil {
				return err
			}
			if err := recLinks.Save(ctx, c); err != nil {
				return err
			}
			if err := c.RecordItem.CreateBulk(items...).Exec(ctx); err != nil {
				return err
			}
			if err := c.FactAnimal.CreateBulk(links...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestFarmArchiveStatements holds the export to the same statements for 5 animals as for
// 300, with an outside AI sire per ten animals and an insemination each: it reads in
// batches, never per animal or per sire.
func TestFarmArchiveStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		counts := map[int]int64{}
		for _, n := range []int{5, 300} {
			f := app.MustFarm(owner, fmt.Sprintf("Herd of %d", n))
			seedArchiveFarm(t, d, f.ID, n)
			var res herdbooktest.Response
			counts[n] = app.Queries(func() { res = app.Do("GET", "/v1/farm/"+f.ID.String()+"/archive", owner.Token, nil) })
			straws := 0
			var a herdbook.Archive
			if err := json.Unmarshal(wantStatusBody(t, res, 200), &a); err != nil || len(a.Animals) != n || len(a.Events) != 3*n ||
				len(a.OutsideAnimals) != n/10+1 {
				t.Fatalf("archive of %d animals: %d animals, %d events (%v)", n, len(a.Animals), len(a.Events), err)
			}
			for _, e := range a.Events {
				if e.Straw != nil && e.Straw.Batch == "S-1" && len(e.SireIdentifiers) == 2 {
					straws++
				}
			}
			if straws != n {
				t.Fatalf("%d inseminations with their straw and sire among %d animals", straws, n)
			}
		}
		if counts[5] != counts[300] {
			t.Fatalf("the export costs %d statements for 5 animals, %d for 300", counts[5], counts[300])
		}
	})
}

// BenchmarkFarmArchiveExport exports a farm of 3,000 animals, each with a record of two
// facts (9,000 rows of the book).
func BenchmarkFarmArchiveExport(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench")
			seedArchiveFarm(b, app.DB, f.ID, 3000)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/archive", u.Token, nil); res.Status != 200 {
					b.Fatal(res.Status)
				}
			}
		})
	}
}

// archiveCarries lists, for every table of the schema, the columns the farm archive carries
// (docs/archive.md); a table that does not travel maps to nil. Columns left out by design:
// change_seq (the new farm's change feed numbers its rows anew), files' storage_key (the new
// farm stores the bytes under its own keys) and farms' is_active (only a live farm exports).
// A farm_id is carried as the farm the archive is imported into, which every row gets.
var archiveCarries = map[string][]string{
	"farms":               {"id", "created_at", "updated_at", "name", "allow_private_threads", "current_month_start", "species", "species_other"},
	"farm_settings":       {"id", "created_at", "updated_at", "farm_id", "time_zone", "withdrawal_rules", "organic", "allow_test_tags", "minimum_breeding_age_female_days", "minimum_breeding_age_male_days", "minimum_calving_interval_days", "calving_ease_scale", "weaning_age_of_dam", "updated_by"},
	"groups":              {"id", "created_at", "updated_at", "is_active", "name", "farm_id"},
	"animals":             {"id", "created_at", "updated_at", "is_active", "tag", "name", "farm_id"},
	"outside_animals":     {"id", "created_at", "updated_at", "farm_id", "name", "sex", "breed", "registry", "registration_number", "batch", "birth_date", "created_by"},
	"files":               {"id", "created_at", "updated_at", "is_active", "name", "mime_type", "size", "deleted_at", "farm_id"},
	"file_records":        {"file_id", "record_id", "farm_id"},
	"medicines":           {"id", "created_at", "updated_at", "is_active", "farm_id", "name", "active_substance", "version", "withdrawal_meat_days", "withdrawal_milk_hours", "species_withdrawals", "dry_cow"},
	"medicine_versions":   {"id", "created_at", "updated_at", "medicine_id", "farm_id", "version", "withdrawal_meat_days", "withdrawal_milk_hours", "species_withdrawals", "dry_cow", "created_by"},
	"medicine_purchases":  {"id", "created_at", "updated_at", "farm_id", "medicine_id", "batch", "expiry_date", "quantity", "quantity_unit", "supplier_name", "supplier_address", "purchased_on", "document_reference", "file_id", "created_by"},
	"records":             {"id", "created_at", "updated_at", "is_active", "recorded_at", "recorded_by_user_id", "recorded_by_client_id", "voided_at", "voided_by_user_id", "voided_by_client_id", "void_reason", "amends_id", "superseded_by_id", "type", "name", "description", "applied_at", "acknowledge_withdrawal", "farm_id"},
	"record_animals":      {"record_id", "animal_id", "farm_id"},
	"record_groups":       {"record_id", "group_id", "farm_id"},
	"record_items":        {"id", "created_at", "updated_at", "is_active", "recorded_at", "recorded_by_user_id", "recorded_by_client_id", "voided_at", "voided_by_user_id", "voided_by_client_id", "void_reason", "amends_id", "superseded_by_id", "name", "description", "metadata", "fact_kind", "fact_subject", "fact_dam", "fact_group", "fact_date", "fact_until", "fact_value", "fact_tail", "record_id", "farm_id"},
	"fact_animals":        {"id", "animal_id", "record_item_id", "farm_id"},
	"treatment_reaches":   {"id", "farm_id", "animal_id", "membership_item_id", "record_item_id"},
	"birth_settings":      {"id", "created_at", "updated_at", "farm_id", "version", "settings", "created_by"},
	"follow_up_protocols": {"id", "created_at", "updated_at", "farm_id", "version", "steps", "created_by"},
	"birth_previews":      {"id", "created_at", "updated_at", "farm_id", "dam_id", "birth_date", "settings_version", "protocol_version", "evidence", "tasks", "stale", "approved_at", "birth_event_id", "created_by"},
	"birth_events":        {"id", "created_at", "updated_at", "farm_id", "dam_id", "birth_date", "preview_id", "request_id", "settings_version", "protocol_version", "created_by"},
	"farm_tasks":          {"id", "created_at", "updated_at", "farm_id", "name", "status", "due_date", "protocol_version", "step", "birth_event_id"},
	"farm_task_animals":   {"farm_task_id", "animal_id", "farm_id"},
	"audit_entries":       {"id", "farm_id", "at", "user_id", "client_id", "action", "entity", "record_id", "record_item_id", "reason", "old_value", "new_value"},
	// People, sessions and servers, not the herd (docs/archive.md "Who may").
	"users": nil, "farm_members": nil, "api_keys": nil, "access_tokens": nil, "refresh_tokens": nil, "browser_sessions": nil,
	"device_authorizations": nil, "oauth_clients": nil, "oauth_codes": nil, "oauth_grants": nil, "threads": nil, "messages": nil,
	"notifications": nil, "notification_preferences": nil, "scheduled_events": nil, "webhook_endpoints": nil, "webhook_events": nil,
	"webhook_deliveries": nil, "webhook_attempts": nil,
	// Request bookkeeping and counters, which the new farm starts afresh.
	"idempotent_requests": nil, "task_updates": nil, "change_counters": nil,
	// Holdings belong to the keeper and may serve several farms; the notices submitted for a
	// holding stay with it. Not carried yet (docs/archive.md): a moved farm is linked to its
	// holding again on the new server.
	"holdings": nil, "holding_farms": nil, "notice_submissions": nil,
	// The keeper's registry password is sealed under this server's registry key and opens
	// nowhere else: the keeper enters it again on the new server (docs/archive.md).
	"registry_credentials": nil,
}

// TestFarmArchiveCoversSchema keeps the archive whole as the schema grows (issue 28: the
// breeding year's outside animals and settings were left out): a new table or a new column of
// a carried table fails here until the archive carries it or this list says why not.
func TestFarmArchiveCoversSchema(t *testing.T) {
	t.Parallel()
	for _, tb := range migrate.Tables {
		carried, known := archiveCarries[tb.Name]
		if !known {
			t.Errorf("table %s is not in the farm archive: carry it (archive.go, archiveimport.go, docs/archive.md) or list it in archiveCarries as not travelling", tb.Name)
			continue
		}
		if carried == nil {
			continue
		}
		for _, c := range tb.Columns {
			if !slices.Contains(carried, c.Name) && c.Name != "change_seq" && c.Name != "storage_key" && !(tb.Name == "farms" && c.Name == "is_active") {
				t.Errorf("column %s.%s is not in the farm archive: carry it (archive.go, archiveimport.go, docs/archive.md)", tb.Name, c.Name)
			}
		}
	}
}
