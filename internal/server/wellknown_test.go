package server_test

import (
	"net/http"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestWellKnownTwinMethods (issue 22.8): /.well-known/oauth-authorization-server/oauth
// answered 404 to methods other than GET where its twin under /oauth/ answers 405.
func TestWellKnownTwinMethods(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	for _, path := range []string{"/.well-known/oauth-authorization-server/oauth", "/oauth/.well-known/oauth-authorization-server"} {
		if res := app.Do("GET", path, "", nil); res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.Status)
		}
		for _, method := range []string{"POST", "PUT", "DELETE"} {
			res := app.Do(method, path, "", nil)
			herdbooktest.WantEnvelope(t, res, http.StatusMethodNotAllowed, "ServiceError", "not allowed")
			if res.Header.Get("Allow") != "GET" {
				t.Fatalf("%s %s: Allow %q", method, path, res.Header.Get("Allow"))
			}
		}
	}
}
