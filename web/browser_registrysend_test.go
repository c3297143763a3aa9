package web_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/cts"
	"github.com/herdbook/herdbook/registry/cts/ctsfake"
)

// TestRegistrySendingInBrowser drives the registry screen's sending card (issue 29.3, 29.5)
// in headless Chromium at 360 px on SQLite and PostgreSQL, against a server whose operator
// turned on the GB CTS adapter, talking to a fake CTWS (registry/cts/ctsfake). The OWNER saves
// the keeper's user name and password there (the password never shown again) and turns
// sending on; the registry's copy is then read from CTS itself and compared with the book: a
// steer CTS has and the book lacks is listed with its fix. axe-core finds no violation.
func TestRegistrySendingInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		fake := ctsfake.New()
		srv := httptest.NewServer(fake)
		t.Cleanup(srv.Close)
		fake.Today = time.Now().UTC().Format(time.DateOnly)
		cow, steer := ctsfake.UKTag("123456", 2), ctsfake.UKTag("123456", 3)
		fake.Cattle[cow] = &ctsfake.Animal{Breed: "AA", Sex: "F", Dob: "2020-04-01", OnDate: "2020-04-01", Here: true}
		fake.Cattle[steer] = &ctsfake.Animal{Breed: "LIMX", Sex: "M", Dob: "2025-01-02", OnDate: "2025-06-01", Here: true}
		regs, err := herdbook.NewRegistries([]byte(strings.Repeat("w", herdbook.RegistryKeySize)), map[string]registry.Adapter{
			"uk.cph": &cts.Client{URL: srv.URL, SoftwareUser: fake.Software, SoftwarePassword: fake.SoftwarePassword}})
		if err != nil {
			t.Fatal(err)
		}
		b := newBrowserWith(t, d, 120*time.Second, herdbooktest.Options{ServiceOptions: []herdbook.Option{herdbook.WithRegistries(regs)}})
		f := b.app.MustFarm(b.user, "Sending Farm")
		farm := f.ID.String()
		b.app.MustAnimal(b.user, f.ID, cow)
		b.gql(t, `mutation($f: ID!) { holdingCreate(input: {farmID: $f, scheme: "uk.cph", identifier: "34/123/1234", keeperName: "Kari Nordmann",
			ruleSet: "gb_cts", timeZone: "UTC"}) { holding { id } } }`, map[string]any{"f": farm})
		base := "/farms/" + farm

		b.signIn(t, nil, nil)
		b.goTo(t, base+"/registry", "Registry")
		b.waitText(t, "#sending-none", "reported by hand")
		// The first save needs both: the server names the missing password.
		b.set(t, "#rs-username", fake.Keeper)
		b.eval(t, `document.querySelector('#rs-password').required = false`)
		b.click(t, "#rs-save")
		b.waitText(t, "#rs-password-error", "required")
		b.poll(t, "the password marked invalid", `document.querySelector('#rs-password').getAttribute('aria-invalid') === 'true'`)
		b.set(t, "#rs-password", fake.KeeperPassword)
		b.click(t, "#rs-sending")
		b.click(t, "#rs-save")
		b.waitText(t, "#rs-status", "Credentials saved.")
		b.waitText(t, "#sending-state", "gb_cts")
		b.waitText(t, "#sending-on", "On: notices are sent")
		if got := b.evalString(t, `document.querySelector('#rs-password').value + document.body.innerText`); strings.Contains(got, fake.KeeperPassword) {
			t.Fatal("the password is shown after saving")
		}
		out := b.gql(t, `query($f: ID!) { farm(id: $f) { holding { registryCredentials { username sending active } } } }`, map[string]any{"f": farm})
		if c := out["farm"].(map[string]any)["holding"].(map[string]any)["registryCredentials"].(map[string]any); c["sending"] != true || c["active"] != true {
			t.Fatalf("the server's credentials: %v", c)
		}
		b.checkAxe(t, "the sending card")

		// The registry's copy read from CTS itself.
		b.click(t, "#rc-registry")
		b.waitText(t, "#rc-differences li[data-tag="+steer+"]", "On the registry, not in your herd book.")
		b.poll(t, "one difference", `document.querySelectorAll('#rc-differences li').length === 1`)
		if got := b.evalString(t, `(() => { const e = document.documentElement; return e.scrollWidth > e.clientWidth ? e.scrollWidth + ' px' : ''; })()`); got != "" {
			t.Errorf("the registry screen is %s wide on a 360 px phone", got)
		}
		b.checkAxe(t, "the registry's copy from CTS")
		b.shot(t, "44-registry-sending")
	})
}
