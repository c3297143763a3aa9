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

// TestControlCharacters: a NUL or invalid UTF-8 in a parameter of the anonymous endpoints is
// a 400 naming the parameter, before any lookup: on PostgreSQL the lookup itself failed with
// a 500 (invalid byte sequence 0x00).
func TestControlCharacters(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		t.Run("ErrAuthorizeClientID", func(t *testing.T) {
			for _, raw := range []string{"%00", "%FF", "public-app%00"} {
				res := e.browser().get("/oauth/authorize?client_id=" + raw + "&redirect_uri=" + url.QueryEscape(e.redirect) + "&response_type=code&scope=read:farms")
				if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "client_id") || res.Header.Get("Location") != "" {
					t.Fatalf("%s: %d %s", raw, res.Status, res.Body)
				}
			}
		})
		t.Run("ErrAuthorizeState", func(t *testing.T) {
			res := e.browser().get("/oauth/authorize?client_id=" + e.public + "&redirect_uri=" + url.QueryEscape(e.redirect) + "&response_type=code&scope=read:farms&state=a%00b")
			if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "state") || res.Header.Get("Location") != "" {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
		envelope := []struct {
			name, path string
			send       func(path string) response
			want       string
		}{
			{"ErrDeviceJSON", "/oauth/device", func(p string) response { return e.postJSON(p, `{"client_id":"\u0000"}`) }, "client_id: must not contain control characters"},
			{"ErrDeviceForm", "/oauth/device", func(p string) response { return e.post(p, url.Values{"client_id": {"\x00"}}) }, "client_id: must not contain control characters"},
			{"ErrDeviceFormInvalidUTF8", "/oauth/device", func(p string) response { return e.post(p, url.Values{"client_id": {"\xff"}}) }, "client_id: must be valid UTF-8"},
			{"ErrDeviceScope", "/oauth/device", func(p string) response {
				return e.post(p, url.Values{"client_id": {e.public}, "scope": {"read:farms\x00"}})
			}, "scope: must not contain"},
			{"ErrDeviceToken", "/oauth/device/token", func(p string) response {
				return e.postJSON(p, `{"grant_type":"urn:ietf:params:oauth:grant-type:device_code","device_code":"hbdc_x","client_id":"\u0000"}`)
			}, "client_id: must not contain"},
			{"ErrRevoke", "/oauth/revoke", func(p string) response { return e.post(p, url.Values{"token": {"x"}, "client_id": {"\x00"}}) }, "client_id: must not contain"},
			{"ErrRevokeToken", "/oauth/revoke", func(p string) response { return e.postJSON(p, `{"token":"a\u0000","client_id":"`+e.public+`"}`) }, "token: must not contain"},
		}
		for _, tc := range envelope {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, tc.send(tc.path).res(), http.StatusBadRequest, "ValidationError", tc.want)
			})
		}
		for _, tc := range []struct {
			name string
			form url.Values
			want string
		}{
			{"ErrTokenClientID", url.Values{"grant_type": {"refresh_token"}, "client_id": {"\x00"}, "refresh_token": {"x"}}, "client_id: must not contain"},
			{"ErrTokenCode", url.Values{"grant_type": {"authorization_code"}, "client_id": {e.public}, "code": {"\x00"}, "redirect_uri": {e.redirect}}, "code: must not contain"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := e.post("/oauth/token", tc.form)
				wantOAuthError(t, res, http.StatusBadRequest, "invalid_request")
				if d := res.json(t)["error_description"].(string); !strings.Contains(d, tc.want) {
					t.Fatalf("error_description %q does not name the parameter", d)
				}
			})
		}
		t.Run("ErrTokenBasicAuthClientID", func(t *testing.T) {
			req, _ := http.NewRequest("POST", e.app.URL+"/oauth/token", strings.NewReader("grant_type=refresh_token&refresh_token=x"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.SetBasicAuth("%00", "secret")
			wantOAuthError(t, e.send(req), http.StatusUnauthorized, "invalid_client")
		})
	})
}
