package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestBreedingInBrowser drives the breeding year's screens (issue 23.3) in headless Chromium
// against a real server, on SQLite and PostgreSQL: add an outside AI sire, inseminate a cow
// with his straw and scan her in calf, and find her on the due list with the day the service
// dates; set the farm's calving-ease scale and an age-of-dam line; record twins (a bull calf
// and his freemartin sister, each with a grade of that scale) on the calving form and find
// both calves on the server; then read a calf's pedigree to three generations, with the
// inbreeding of a half-sib mating (F = 1/8). axe-core checks every new screen; with
// HERDBOOK_SCREENSHOT_DIR set the breeding screen, the twins and the pedigree are saved
// (web-21, web-22, web-23).
func TestBreedingInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t) // skips before any database is made when Chromium or axe-core is missing
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		runBreeding(t, newBrowser(t, d, 60*time.Second))
	})
}

// breedingSeed is the farm of the breeding test: two cows, the older one's parents, and a
// bull who is her half-brother (both out of GD-1), so that their calf is inbred.
type breedingSeed struct {
	farm, cow1, cow2, cow3, granddam, grandsire, bull string
}

func seedBreeding(t *testing.T, b *browser) breedingSeed {
	t.Helper()
	u := b.user
	f := b.app.MustFarm(u, "Valley Farm")
	s := breedingSeed{farm: f.ID.String()}
	s.cow1 = b.app.MustAnimal(u, f.ID, "COW-1").ID.String()
	s.cow2 = b.app.MustAnimal(u, f.ID, "COW-2").ID.String()
	s.cow3 = b.app.MustAnimal(u, f.ID, "COW-3").ID.String()
	s.granddam = b.app.MustAnimal(u, f.ID, "GD-1").ID.String()
	s.grandsire = b.app.MustAnimal(u, f.ID, "B-OLD").ID.String()
	s.bull = b.app.MustAnimal(u, f.ID, "B-1").ID.String()
	vars := map[string]any{"f": s.farm, "c1": s.cow1, "c2": s.cow2, "c3": s.cow3, "gd": s.granddam, "gs": s.grandsire, "b": s.bull}
	b.gql(t, `mutation($f: ID!) { farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename } }`, vars)
	// The gestation range is the farm's (a test value, not a default): the due list dates
	// a calving from a service with it.
	b.gql(t, `mutation($f: ID!, $c1: ID!, $c2: ID!, $c3: ID!, $gd: ID!, $gs: ID!, $b: ID!) {
		p1: recordProfile(farmID: $f, input: {animalID: $gd, sex: FEMALE, birthDate: "2016-02-01", breed: "Angus"}) { id }
		p2: recordProfile(farmID: $f, input: {animalID: $gs, sex: MALE, birthDate: "2014-05-01", breed: "Angus"}) { id }
		p3: recordProfile(farmID: $f, input: {animalID: $b, sex: MALE, birthDate: "2020-03-01", breed: "Angus"}) { id }
		p4: recordProfile(farmID: $f, input: {animalID: $c1, sex: FEMALE, birthDate: "2021-03-10", breed: "Angus"}) { id }
		p5: recordProfile(farmID: $f, input: {animalID: $c2, sex: FEMALE, birthDate: "2022-04-01", breed: "Angus"}) { id }
		p6: recordProfile(farmID: $f, input: {animalID: $c3, sex: FEMALE, birthDate: "2021-05-01", breed: "Hereford"}) { id }
		b1: recordBirth(farmID: $f, input: {damID: $gd, date: "2020-03-01", offspringIDs: [$b]}) { id }
		b2: recordBirth(farmID: $f, input: {damID: $gd, date: "2021-03-10", offspringIDs: [$c1], sireID: $gs}) { id }
		s: putBirthSettings(farmID: $f, input: {version: 1, species: "CATTLE", gestationDays: {min: 279, max: 292}}) { settingsVersion }
	}`, vars)
	return s
}

func runBreeding(t *testing.T, b *browser) {
	s := seedBreeding(t, b)
	base := "/farms/" + s.farm
	day := func(daysAgo int) string { return time.Now().AddDate(0, 0, -daysAgo).Format(time.DateOnly) }
	served := day(100)
	b.signIn(t, nil, nil)

	t.Run("ServiceScanDueList", func(t *testing.T) {
		b.goTo(t, base+"/breeding", "Breeding")
		b.waitText(t, "#due-list", "None")
		b.checkAxe(t, "breeding (empty)")

		// An AI bull that never stands on the farm, with the batch of straws the farm holds.
		b.click(t, "#outside summary")
		b.set(t, "#outside-name", "Ice Storm")
		b.set(t, "#outside-breed", "Angus")
		b.set(t, "#outside-batch", "IS-2025-01")
		b.click(t, "#outside-save")
		b.waitText(t, "#outside-status", "Outside animal recorded")
		out := b.gql(t, `query($f: ID!) { farm(id: $f) { outsideAnimals { edges { node { id name sex batch } } } } }`, map[string]any{"f": s.farm})
		edges := out["farm"].(map[string]any)["outsideAnimals"].(map[string]any)["edges"].([]any)
		if len(edges) != 1 {
			t.Fatalf("after adding an outside sire the farm has %v", edges)
		}
		ice := edges[0].(map[string]any)["node"].(map[string]any)
		if ice["name"] != "Ice Storm" || ice["sex"] != "male" || ice["batch"] != "IS-2025-01" {
			t.Fatalf("the outside sire is %v", ice)
		}

		// Inseminate COW-2 with his semen: choosing him fills in his straw batch.
		b.waitText(t, "#service-sire", "Ice Storm")
		b.set(t, "#service-female", "COW-2")
		b.set(t, "#service-date", served)
		b.set(t, "#service-sire", ice["id"].(string))
		b.poll(t, "the straw filled in from the sire's batch", `document.querySelector('#service-straw').value === 'IS-2025-01'`)
		b.set(t, "#service-technician", "A. Vet")
		b.click(t, "#service-save")
		b.waitText(t, "#service-status", "Service recorded")

		// Scanned in calf 60 days later, with a foetal age of 60 days.
		b.set(t, "#scan-female", "COW-2")
		b.set(t, "#scan-date", day(40))
		b.set(t, "#scan-method", "SCAN")
		b.set(t, "#scan-result", "PREGNANT")
		b.set(t, "#scan-age", "60")
		b.click(t, "#scan-save")
		b.waitText(t, "#scan-status", "Pregnancy check recorded")

		// The due list dates her calving from the service: 279 to 292 days after it.
		from := time.Now().AddDate(0, 0, -100+279).Format(time.DateOnly)
		to := time.Now().AddDate(0, 0, -100+292).Format(time.DateOnly)
		b.waitText(t, "#due-list", "COW-2")
		b.waitText(t, "#due-list", from+" – "+to)
		b.waitText(t, "#due-list", "Insemination "+served+" · Ice Storm")
		b.shot(t, "21-breeding")
		out = b.gql(t, `query($f: ID!) { farm(id: $f) { due { totalCount edges { node { animalID basis serviceKind sireID expectedFrom expectedTo } } } } }`, map[string]any{"f": s.farm})
		due := out["farm"].(map[string]any)["due"].(map[string]any)
		if due["totalCount"] != 1.0 {
			t.Fatalf("the due list is %v", due)
		}
		n := due["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)
		if n["animalID"] != s.cow2 || n["basis"] != "service" || n["serviceKind"] != "insemination" || n["sireID"] != ice["id"] || n["expectedFrom"] != from || n["expectedTo"] != to {
			t.Fatalf("COW-2's due entry is %v", n)
		}
	})

	t.Run("OfflineCheckQueued", func(t *testing.T) {
		// Offline, the breeding screen finds the cow in the kept register and queues the
		// check in the outbox; back online it is sent, once.
		b.goTo(t, base+"/register", "Register")
		b.poll(t, "the register kept on the device", `new Promise(ok => { const r = indexedDB.open('herdbook'); r.onsuccess = () => {
			const q = r.result.transaction('kv').objectStore('kv').get('register:`+s.farm+`');
			q.onsuccess = () => { r.result.close(); ok(!!q.result && q.result.rows.length === 6); }; }; })`)
		b.goTo(t, base+"/breeding", "Breeding")
		b.waitText(t, "#due-list", "COW-2")
		b.offline(t, true)
		b.waitText(t, "#offline", "")
		b.set(t, "#scan-female", "COW-2")
		b.set(t, "#scan-date", day(10))
		b.set(t, "#scan-method", "PALPATION")
		b.set(t, "#scan-result", "PREGNANT")
		b.click(t, "#scan-save")
		b.waitText(t, "#scan-status", "sent when you are online")
		b.goTo(t, "/outbox", "Queued writes")
		b.waitText(t, "#outbox-list", "Record a pregnancy check COW-2")
		b.offline(t, false)
		b.waitText(t, "#outbox-list", "Sent")
		out := b.gql(t, `query($f: ID!) { farm(id: $f) { due { totalCount edges { node { animalID checkDate method basis } } } } }`, map[string]any{"f": s.farm})
		if got := fmt.Sprint(out["farm"]); got != "map[due:map[edges:[map[node:map[animalID:"+s.cow2+" basis:service checkDate:"+day(10)+" method:palpation]]] totalCount:1]]" {
			t.Fatalf("after the queued check was sent the due list is %s", got)
		}
	})

	t.Run("CalvingEaseScaleAndTwins", func(t *testing.T) {
		// The farm's own calving-ease grades, and one age-of-dam line (test values).
		b.goTo(t, base+"/settings", "Farm settings")
		b.poll(t, "the settings loaded", `document.querySelector('#fs-zone') && document.querySelector('#fs-zone').value === 'UTC'`)
		b.click(t, "#fs-ease-add")
		b.set(t, "#fs-ease-code-0", "1")
		b.set(t, "#fs-ease-label-0", "Unassisted")
		b.click(t, "#fs-ease-add")
		b.set(t, "#fs-ease-code-1", "2")
		b.set(t, "#fs-ease-label-1", "Easy pull")
		b.click(t, "#fs-aod-add")
		b.set(t, "#fs-aod-minDays-0", "1095")
		b.set(t, "#fs-aod-maxDays-0", "1825")
		b.set(t, "#fs-aod-maleKG-0", "15")
		b.set(t, "#fs-aod-femaleKG-0", "12.5")
		b.checkAxe(t, "farm settings (breeding)")
		b.click(t, "#fs-save")
		b.waitText(t, "#fs-status", "Saved")
		out := b.gql(t, `query($f: ID!) { farm(id: $f) { settings { calvingEaseScale { code label } weaningAgeOfDam { minDays maxDays maleKG femaleKG } minimumCalvingIntervalDays } } }`, map[string]any{"f": s.farm})
		if got := fmt.Sprint(out["farm"].(map[string]any)["settings"]); got != "map[calvingEaseScale:[map[code:1 label:Unassisted] map[code:2 label:Easy pull]] minimumCalvingIntervalDays:<nil> weaningAgeOfDam:[map[femaleKG:12.5 maleKG:15 maxDays:1825 minDays:1095]]]" {
			t.Fatalf("after saving the breeding settings the server has %s", got)
		}

		// Twins: a bull calf and his freemartin sister, by B-1 (known by DNA).
		b.goTo(t, base+"/calving", "Calving")
		b.waitText(t, "#calf-ease", "Unassisted")
		b.set(t, "#calving-dam", "COW-1")
		b.set(t, "#calving-sire-tag", "B-1")
		b.set(t, "#calving-basis", "dna")
		b.set(t, "#calving-lab", "Weatherbys")
		b.set(t, "#calf-tag", "T-1")
		b.set(t, "#calf-sex", "male")
		b.set(t, "#calf-weight", "40")
		b.set(t, "#calf-ease", "2")
		b.click(t, "#calf-add")
		b.set(t, "#calf2-tag", "T-2")
		b.set(t, "#calf2-sex", "female")
		b.set(t, "#calf2-weight", "35.5")
		b.set(t, "#calf2-ease", "2")
		b.click(t, "#calf2-freemartin")
		b.shot(t, "22-calving-twins")
		b.click(t, "#calving-save")
		b.waitText(t, "#calving-status", "Calving recorded")
		b.waitText(t, "#calving-list", "twins")
		b.waitText(t, "#calving-list", "T-2")
		out = b.gql(t, `query($f: ID!) { farm(id: $f) { calvings { edges { node { damID sire { animalID basis status } calves { tag sex status birthWeight calvingEase twin freemartin } } } } } }`, map[string]any{"f": s.farm})
		got := fmt.Sprint(out["farm"])
		for _, want := range []string{
			"damID:" + s.cow1, "animalID:" + s.bull + " basis:dna status:recorded",
			"birthWeight:40 calvingEase:2 freemartin:false sex:male status:alive tag:T-1 twin:true",
			"birthWeight:35.5 calvingEase:2 freemartin:true sex:female status:alive tag:T-2 twin:true",
		} {
			if !strings.Contains(got, want) {
				t.Fatalf("after recording twins the farm's calvings are %s; want %q", got, want)
			}
		}
	})

	t.Run("Pedigree", func(t *testing.T) {
		// T-2's dam COW-1 and sire B-1 are half-sibs (both out of GD-1): F = 1/8.
		b.eval(t, `[...document.querySelectorAll('#calving-list a')].find(a => a.innerText.startsWith('T-2')).click()`)
		b.waitText(t, "h1", "T-2")
		b.waitText(t, "#pedigree", "Dam's dam")
		for _, want := range []string{"COW-1", "B-1", "GD-1", "B-OLD"} {
			b.waitText(t, "#pedigree", want)
		}
		b.waitText(t, "#animal-inbreeding", "12.5%")
		b.shot(t, "23-pedigree")
	})

	t.Run("EmbryoTransferPedigree", func(t *testing.T) {
		// An embryo of an outside donor by the outside AI sire, placed in COW-3: her calf's
		// pedigree names the donor and the sire, not the cow that carried it.
		b.goTo(t, base+"/breeding", "Breeding")
		b.click(t, "#outside summary")
		b.set(t, "#outside-name", "Donor Queen")
		b.set(t, "#outside-sex", "female")
		b.click(t, "#outside-save")
		b.waitText(t, "#outside-status", "Outside animal recorded")
		out := b.gql(t, `query($f: ID!) { farm(id: $f) { outsideAnimals { edges { node { id name } } } } }`, map[string]any{"f": s.farm})
		ids := map[string]string{}
		for _, e := range out["farm"].(map[string]any)["outsideAnimals"].(map[string]any)["edges"].([]any) {
			n := e.(map[string]any)["node"].(map[string]any)
			ids[n["name"].(string)] = n["id"].(string)
		}
		b.set(t, "#service-kind", "embryo_transfer")
		b.set(t, "#service-female", "COW-3")
		b.set(t, "#service-date", day(283))
		b.waitText(t, "#service-sire", "Ice Storm")
		b.set(t, "#service-sire", ids["Ice Storm"])
		b.waitText(t, "#service-donor", "Donor Queen")
		b.set(t, "#service-donor", ids["Donor Queen"])
		b.set(t, "#service-embryo", "DQ-7")
		b.checkAxe(t, "breeding (embryo transfer)")
		b.click(t, "#service-save")
		b.waitText(t, "#service-status", "Service recorded")

		b.goTo(t, base+"/calving", "Calving")
		b.set(t, "#calving-dam", "COW-3")
		b.click(t, "#calving-et")
		b.waitText(t, "#calving-form", "embryo transfer recorded on the breeding screen")
		b.set(t, "#calf-tag", "E-1")
		b.click(t, "#calving-save")
		b.waitText(t, "#calving-status", "Calving recorded")
		b.waitText(t, "#calving-list", "E-1")
		b.eval(t, `[...document.querySelectorAll('#calving-list a')].find(a => a.innerText.startsWith('E-1')).click()`)
		b.waitText(t, "h1", "E-1")
		b.waitText(t, "#pedigree", "Donor Queen")
		b.waitText(t, "#pedigree", "Ice Storm")
		b.waitText(t, "#pedigree", "outside the farm")
		b.waitText(t, "#animal-inbreeding", "0%")
		if got := b.evalString(t, `document.querySelector('#pedigree').innerText`); strings.Contains(got, "COW-3") {
			t.Fatalf("the embryo-transfer calf's pedigree names the recipient: %s", got)
		}
	})
}
