package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestBodyParameters: the anonymous endpoints read JSON and form bodies the same strict way:
// each parameter once (a JSON key given twice is refused as a repeated form field is), and
// within the 10 MB limit.
func TestBodyParameters(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		dup := []struct {
			name, path, body, want string
		}{
			{"ErrDeviceDuplicateKey", "/oauth/device", `{"client_id":"` + e.public + `","client_id":"server-app"}`, "client_id: is given more than once"},
			{"ErrDeviceTokenDuplicateKey", "/oauth/device/token",
				`{"grant_type":"urn:ietf:params:oauth:grant-type:device_code","device_code":"hbdc_x","client_id":"` + e.public + `","device_code":"hbdc_y"}`,
				"device_code: is given more than once"},
			{"ErrRevokeDuplicateKey", "/oauth/revoke", `{"token":"a","client_id":"` + e.public + `","token":"b"}`, "token: is given more than once"},
		}
		for _, tc := range dup {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, e.postJSON(tc.path, tc.body).res(), http.StatusBadRequest, "ValidationError", tc.want)
			})
		}
		t.Run("ErrTokenDuplicateKey", func(t *testing.T) {
			res := e.postJSON("/oauth/token", `{"grant_type":"refresh_token","client_id":"`+e.public+`","refresh_token":"a","grant_type":"authorization_code"}`)
			wantOAuthError(t, res, http.StatusBadRequest, "invalid_request")
			if d := res.json(t)["error_description"]; !strings.Contains(d.(string), "grant_type: is given more than once") {
				t.Fatalf("error_description %q does not name the key", d)
			}
		})
		t.Run("ErrFormRepeated", func(t *testing.T) {
			res := e.post("/oauth/device", url.Values{"client_id": {e.public, e.public}})
			herdbooktest.WantEnvelope(t, res.res(), http.StatusBadRequest, "ValidationError", "client_id: must be given once")
		})
		t.Run("ErrFormTooLarge", func(t *testing.T) {
			res := e.post("/oauth/revoke", url.Values{"client_id": {e.public}, "token": {strings.Repeat("x", 10<<20)}})
			herdbooktest.WantEnvelope(t, res.res(), http.StatusRequestEntityTooLarge, "ValidationError", "larger than 10485760 bytes")
		})
	})
}
