package web_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/file"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/medicine"
	"github.com/herdbook/herdbook/ent/medicinepurchase"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestOnboardInBrowser takes a user with no farm to a farm they can work with, in the app
// (issue 31.3), in headless Chromium at 360 px on SQLite and PostgreSQL: a new farm (a name the
// server refuses is shown under its field, then the farm is made with its time zone), its
// start card, a cow bought in (a holding number the server refuses under its field, then sent
// again without making the cow twice, with the seller and a passport document), a calf born
// here to her, a bought-in calf, a group, a medicine with a line of its label for sheep, and a
// purchase of it (refused without its proof, then recorded with the invoice as a file), and two heifers imported from a
// CSV file (after a file whose row problems the server names). Each step is marked done on the
// start card, which goes once all are. The server holds each thing exactly once; axe-core
// finds nothing on any form, and no screen is wider than the phone. The forms read in French.
func TestOnboardInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 150*time.Second)
		ctx := b.app.Ctx(b.user)
		narrow := func(screen string) {
			t.Helper()
			if got := b.overflow(t); got != "" {
				t.Errorf("%s is %s on a 360 px phone", screen, got)
			}
			b.checkAxe(t, screen)
		}

		b.signIn(t, nil, nil)
		b.waitText(t, "main", "not a member of any farm")
		b.click(t, "#farm-new")
		b.waitText(t, "h1", "New farm")
		narrow("the new farm form")
		// The server's refusal is shown under the field it names.
		b.set(t, "#nf-name", "N")
		b.click(t, "#nf-save")
		b.waitText(t, "#nf-name-error", "2")
		b.poll(t, "the name marked invalid", `document.querySelector('#nf-name').getAttribute('aria-invalid') === 'true'`)
		narrow("the new farm form with a refusal")
		b.set(t, "#nf-name", "Nordgard")
		b.set(t, "#nf-species", "CATTLE")
		b.set(t, "#nf-time_zone", "Europe/Oslo")
		b.click(t, "#nf-save")
		b.waitText(t, "h1", "Nordgard")
		b.waitText(t, "#start", "Get the farm going")
		b.poll(t, "four steps to do", `document.querySelectorAll('#start li[data-done=false]').length === 4`)
		narrow("the start card")
		b.shot(t, "45-start-card")
		f, err := d.Client.Farm.Query().Where(farm.Name("Nordgard")).Only(ctx)
		if err != nil {
			t.Fatalf("the farm on the server: %v", err)
		}
		if s, err := b.app.Service.FarmSettings(ctx, f.ID); err != nil || s.TimeZone != "Europe/Oslo" {
			t.Fatalf("the farm's time zone: %v %v", s, err)
		}
		base := "/farms/" + f.ID.String()

		// A cow bought in: the holding number is refused under its field once the cow is made;
		// sent again, the purchase goes alone.
		b.click(t, "#step-animals a")
		b.waitText(t, "h1", "Add an animal")
		narrow("the animal form, born here")
		b.click(t, "#na-kind-bought")
		b.waitText(t, "#na-purchase", "Bought on")
		b.set(t, "#na-tag", "COW-1")
		b.set(t, "#na-sex", "female")
		b.set(t, "#na-birth_date", "2020-03-01")
		b.set(t, "#na-breed", "NRF")
		b.set(t, "#na-date", "2024-05-01")
		b.set(t, "#na-holding_scheme", "uk.cph")
		b.set(t, "#na-holding_number", "12")
		b.set(t, "#na-description", "Ola Nordmann, Lia")
		doc := filepath.Join(t.TempDir(), "passport.pdf")
		if err := os.WriteFile(doc, []byte("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(b.ctx, chromedp.SetUploadFiles(chromedp.CSS("#na-document"), []string{doc})); err != nil {
			t.Fatal(err)
		}
		b.click(t, "#na-save")
		b.waitText(t, "#na-holding_number-error", "")
		b.poll(t, "the holding number marked invalid", `document.querySelector('#na-holding_number').getAttribute('aria-invalid') === 'true'`)
		narrow("the animal form, bought in, with a refusal")
		b.set(t, "#na-holding_number", "34/123/1234")
		b.click(t, "#na-save")
		b.waitText(t, "#na-status", "Animal added: COW-1")
		narrow("the animal form, bought in")
		b.shot(t, "46-bought-in")

		// A calf born here to her.
		b.click(t, "#na-kind-born")
		b.set(t, "#na-tag", "CALF-1")
		b.set(t, "#na-sex", "male")
		b.set(t, "#na-birth_date", time.Now().AddDate(0, 0, -20).Format(time.DateOnly))
		b.set(t, "#na-dam", "COW-1")
		b.click(t, "#na-save")
		b.waitText(t, "#na-status", "Animal added: CALF-1")

		// A bought-in calf: birth date and sex asked for.
		b.click(t, "#na-kind-calf")
		b.poll(t, "the calf's birth date required", `document.querySelector('#na-birth_date').required && document.querySelector('#na-sex').required`)
		narrow("the animal form, bought-in calf")
		b.set(t, "#na-tag", "CALF-2")
		b.set(t, "#na-sex", "female")
		b.set(t, "#na-birth_date", time.Now().AddDate(0, 0, -40).Format(time.DateOnly))
		b.set(t, "#na-date", time.Now().AddDate(0, 0, -30).Format(time.DateOnly))
		b.set(t, "#na-holding_scheme", "")
		b.set(t, "#na-holding_number", "")
		b.set(t, "#na-description", "")
		b.click(t, "#na-save")
		b.waitText(t, "#na-status", "Animal added: CALF-2")

		// More animals from a spreadsheet: the server's row problems first, then the import.
		b.click(t, "#na-import")
		b.waitText(t, "h1", "Import animals")
		csv := func(name, body string) {
			t.Helper()
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(b.ctx, chromedp.SetUploadFiles(chromedp.CSS("#im-file"), []string{path})); err != nil {
				t.Fatal(err)
			}
		}
		csv("bad.csv", "tag,sex,birth_date\nIMP-1,female,2021-01-01\nIMP-2,cow,2021-13-01\n")
		b.click(t, "#im-save")
		b.waitText(t, "#im-problems", "sex")
		b.poll(t, "two problems of row 3", `[...document.querySelectorAll('#im-problems tbody tr')].filter(r => r.cells[0].innerText === '3').length === 2`)
		narrow("the import with the server's row problems")
		csv("herd.csv", "tag,sex,birth_date,group\nIMP-1,female,2021-01-01,Yearlings\nIMP-2,female,2021-02-01,Yearlings\n")
		b.click(t, "#im-check")
		b.waitText(t, "#im-status", "The file is good")
		b.click(t, "#im-save")
		b.waitText(t, "#im-status", "Imported.")
		b.waitText(t, "#im-animals", "IMP-2")
		narrow("the import")

		b.goTo(t, base, "Nordgard")
		b.poll(t, "the animals step done", `document.querySelector('#step-animals').dataset.done === 'true'`)
		// The import made the group: that step is done too.
		b.poll(t, "the groups step done", `document.querySelector('#step-groups').dataset.done === 'true'`)

		// A group.
		b.click(t, "#step-groups a")
		b.waitText(t, "h1", "Add a group")
		b.set(t, "#ng-name", "Heifers")
		b.click(t, "#ng-save")
		b.waitText(t, "#ng-status", "Group added.")
		b.waitText(t, "#group-list", "Heifers")
		narrow("the group form")
		// Offline, a group waits in the outbox with its Idempotency-Key and is sent once online.
		b.offline(t, true)
		b.set(t, "#ng-name", "Bulls")
		b.click(t, "#ng-save")
		b.waitText(t, "#ng-status", "Saved on this device")
		b.offline(t, false)
		b.eval(t, `dispatchEvent(new Event('online'))`)
		b.waitText(t, "#group-list", "Bulls")

		// A medicine with a line of its label, and a purchase of it.
		b.goTo(t, base, "Nordgard")
		b.click(t, "#step-medicines a")
		b.waitText(t, "h1", "Add a medicine")
		b.waitText(t, "#mp-none", "first")
		b.set(t, "#nm-name", "Penstrep")
		b.set(t, "#nm-active_substance", "procaine benzylpenicillin")
		b.set(t, "#nm-withdrawal_meat_days", "23")
		b.set(t, "#nm-withdrawal_milk_hours", "60")
		b.click(t, "#nm-line-add")
		b.set(t, "#nm-line-0-species", "SHEEP")
		b.set(t, "#nm-line-0-meat", "28")
		narrow("the medicine form with a label line")
		b.click(t, "#nm-save")
		b.waitText(t, "#nm-status", "Medicine added.")
		b.waitText(t, "#purchase-form", "Batch")
		b.set(t, "#mp-batch", "B-2291")
		b.set(t, "#mp-expiry_date", "2027-01-31")
		b.set(t, "#mp-quantity", "100")
		b.set(t, "#mp-quantity_unit", "ml")
		b.set(t, "#mp-supplier_name", "Felleskjøpet")
		b.set(t, "#mp-supplier_address", "Postboks 1, 0001 Oslo")
		b.click(t, "#mp-save")
		b.waitText(t, "#mp-document_reference-error", "required")
		narrow("the purchase form with a refusal")
		// The proof is the invoice itself, uploaded as a file of the farm.
		invoice := filepath.Join(t.TempDir(), "invoice.pdf")
		if err := os.WriteFile(invoice, []byte("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(b.ctx, chromedp.SetUploadFiles(chromedp.CSS("#mp-file_id"), []string{invoice})); err != nil {
			t.Fatal(err)
		}
		b.click(t, "#mp-save")
		b.waitText(t, "#mp-status", "Purchase recorded.")
		b.waitText(t, "#purchase-list", "B-2291")
		b.shot(t, "47-medicine-purchase")

		// The birth settings; then every step is done and the card goes.
		b.goTo(t, base, "Nordgard")
		b.poll(t, "three steps done", `document.querySelectorAll('#start li[data-done=true]').length === 3`)
		b.click(t, "#step-birth a")
		b.waitText(t, "h1", "Birth settings")
		b.set(t, "#bs-min", "279")
		b.set(t, "#bs-max", "292")
		b.click(t, "#bs-save")
		b.waitText(t, "#bs-status", "Saved.")
		narrow("the birth settings form")
		b.goTo(t, base, "Nordgard")
		b.waitText(t, "#count-on-farm", "5")
		b.poll(t, "the start card gone", `!document.querySelector('#start')`)

		// The server holds each exactly once.
		one := func(what string, n int, err error) {
			t.Helper()
			if err != nil || n != 1 {
				t.Errorf("%s on the server: %d, %v; want exactly one", what, n, err)
			}
		}
		for _, tag := range []string{"COW-1", "CALF-1", "CALF-2", "IMP-1", "IMP-2"} {
			n, err := d.Client.Animal.Query().Where(animal.FarmID(f.ID), animal.Tag(tag)).Count(ctx)
			one(tag, n, err)
		}
		if n, err := d.Client.Animal.Query().Where(animal.FarmID(f.ID)).Count(ctx); err != nil || n != 5 {
			t.Errorf("animals on the server: %d, %v; want 5", n, err)
		}
		n, err := d.Client.Group.Query().Where(group.FarmID(f.ID), group.Name("Heifers")).Count(ctx)
		one("the group", n, err)
		n, err = d.Client.Group.Query().Where(group.FarmID(f.ID), group.Name("Bulls")).Count(ctx)
		one("the group made offline", n, err)
		n, err = d.Client.Medicine.Query().Where(medicine.FarmID(f.ID)).Count(ctx)
		one("the medicine", n, err)
		n, err = d.Client.MedicinePurchase.Query().Where(medicinepurchase.FarmID(f.ID), medicinepurchase.Batch("B-2291"), medicinepurchase.FileIDNotNil()).Count(ctx)
		one("the medicine purchase, its invoice a file", n, err)
		purchases, err := d.Client.RecordItem.Query().Where(recorditem.FactKind("purchase"), recorditem.FarmID(f.ID)).
			WithRecord().All(ctx)
		if err != nil || len(purchases) != 2 {
			t.Fatalf("purchase facts: %d, %v; want two (the cow's, the calf's)", len(purchases), err)
		}
		cow, err := d.Client.Animal.Query().Where(animal.FarmID(f.ID), animal.Tag("COW-1")).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		factOf := func(it *ent.RecordItem) map[string]any {
			var m struct {
				Fact map[string]any `json:"birth_history"`
			}
			if err := json.Unmarshal(it.Metadata, &m); err != nil {
				t.Fatal(err)
			}
			return m.Fact
		}
		var bought *ent.RecordItem
		for _, p := range purchases {
			if factOf(p)["animal_id"] == cow.ID.String() {
				bought = p
			}
		}
		if bought == nil {
			t.Fatal("no purchase fact of the cow")
		}
		fact := factOf(bought)
		if fact["date"] != "2024-05-01" || fact["holding_scheme"] != "uk.cph" || fact["holding_number"] != "34/123/1234" {
			t.Errorf("the cow's purchase fact: %v", fact)
		}
		if r := bought.Edges.Record; r.Description == nil || *r.Description != "Ola Nordmann, Lia" {
			t.Errorf("the purchase's seller: %v", r.Description)
		}
		n, err = d.Client.File.Query().Where(file.FarmID(f.ID), file.HasRecordsWith(record.ID(bought.RecordID))).Count(ctx)
		one("the cow's passport attached to her purchase", n, err)
		m, err := d.Client.Medicine.Query().Where(medicine.FarmID(f.ID)).Only(ctx)
		if err != nil || m.WithdrawalMeatDays == nil || *m.WithdrawalMeatDays != 23 || len(m.SpeciesWithdrawals) != 1 {
			t.Errorf("the medicine on the server: %+v, %v", m, err)
		}

		// The forms read in French.
		b.goTo(t, "/settings", "Settings")
		b.set(t, "#pref-lang", "fr")
		b.click(t, "#pref-save")
		b.goTo(t, base+"/animals/new", "Ajouter un animal")
		b.waitText(t, "#animal-form", "Veau acheté")
		narrow("the animal form in French")
	})
}
