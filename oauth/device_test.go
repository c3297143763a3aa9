package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/ent/oauthclient"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

var userCodeFormat = regexp.MustCompile(`^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`)

// TestDeviceAuthorization covers POST /oauth/device and the user codes.
func TestDeviceAuthorization(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		t.Run("Answer", func(t *testing.T) {
			res := e.post("/oauth/device", url.Values{"client_id": {e.public}, "scope": {"read:farms read:records"}})
			if res.Status != http.StatusOK || res.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%d %v %s", res.Status, res.Header, res.Body)
			}
			v := res.json(t)
			for _, k := range []string{"device_code", "user_code", "verification_uri", "verification_uri_complete"} {
				if s, _ := v[k].(string); s == "" {
					t.Fatalf("%s missing: %s", k, res.Body)
				}
			}
			if v["expires_in"] != float64(900) || v["interval"] != float64(5) {
				t.Fatalf("expires_in/interval: %s", res.Body)
			}
			if v["verification_uri"] != e.app.URL+"/oauth/activate" ||
				v["verification_uri_complete"] != e.app.URL+"/oauth/activate?user_code="+v["user_code"].(string) {
				t.Fatalf("verification URIs: %s", res.Body)
			}
		})
		t.Run("UserCodeFormat", func(t *testing.T) {
			seen := map[string]bool{}
			for i := range 1000 {
				var c string
				if i < 10 { // POST /oauth/device allows 30 per window: most codes come from the generator
					c = e.deviceStart(e.public, "")["user_code"].(string)
				} else {
					c = oauth.NewUserCode()
				}
				if !userCodeFormat.MatchString(c) || seen[c] {
					t.Fatalf("user code %q", c)
				}
				seen[c] = true
			}
			for in, want := range map[string]bool{
				"BCDF-GHJK": true, "bcdf-ghjk": true, "BCDFGHJK": true, " bcdf ghjk ": true, "b-c-d-f-g-h-j-k": true,
				"BCDF-GHJ": false, "BCDF-GHJKL": false, "ABCD-EFGH": false, "BCDF-GHJ0": false, "BCDF-GHJ1": false, "": false,
			} {
				if _, ok := oauth.NormalizeUserCode(in); ok != want {
					t.Errorf("NormalizeUserCode(%q) = %v, want %v", in, ok, want)
				}
			}
		})
		t.Run("UserCodeCaseAndDashInsensitive", func(t *testing.T) {
			da := e.deviceStart(e.public, "")
			typed := strings.ToLower(strings.ReplaceAll(da["user_code"].(string), "-", ""))
			if res := e.approve(typed, true); res.Status != http.StatusOK {
				t.Fatalf("approve %q: %d %s", typed, res.Status, res.Body)
			}
			if res := e.poll(e.public, da["device_code"].(string)); res.Status != http.StatusOK {
				t.Fatalf("poll: %d %s", res.Status, res.Body)
			}
		})
		t.Run("Errors", func(t *testing.T) {
			for _, tc := range []struct {
				name    string
				form    url.Values
				status  int
				errName string
			}{
				{"ErrNoClient", url.Values{}, 400, "ValidationError"},
				{"ErrClientTooLong", url.Values{"client_id": {strings.Repeat("c", 256)}}, 400, "ValidationError"},
				{"ErrScopeTooLong", url.Values{"client_id": {e.public}, "scope": {strings.Repeat("s", 1025)}}, 400, "ValidationError"},
				{"ErrScopeNotAllowed", url.Values{"client_id": {e.conf}, "scope": {"write:records"}}, 400, "ValidationError"},
				{"ErrUnknownScope", url.Values{"client_id": {e.public}, "scope": {"read:everything"}}, 400, "ValidationError"},
				{"ErrUnknownClient", url.Values{"client_id": {"nobody"}}, 401, "Unauthorized"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					herdbooktest.WantEnvelope(t, e.post("/oauth/device", tc.form).res(), tc.status, tc.errName, "")
				})
			}
		})
		t.Run("ErrGuessesLimited", func(t *testing.T) {
			b := e.browser()
			b.signIn()
			page := b.get("/oauth/activate")
			// Earlier subtests spent a few entries of this address's budget.
			freshWindow(t)
			var last response
			for i := range oauth.LimitUserCode + 1 {
				last = b.form(page, "/oauth/activate", url.Values{"user_code": {"BCDF-" + []string{"GHJK", "GHJL", "GHJM"}[i%3]}})
				if last.Status != http.StatusBadRequest {
					break
				}
				if !strings.Contains(string(last.Body), "not valid") {
					t.Fatalf("guess %d: %s", i, last.Body)
				}
			}
			if last.Status != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
				t.Fatalf("guess over the limit: %d %v", last.Status, last.Header)
			}
			// The limit also holds for the decision form, which takes a code too.
			res := b.form(page, "/oauth/activate/decide", url.Values{"user_code": {"BCDF-GHJK"}, "decision": {"approve"}})
			if res.Status != http.StatusTooManyRequests {
				t.Fatalf("decide over the limit: %d", res.Status)
			}
		})
	})
}

// TestDeviceToken covers the polling answers, with SPEC.md's statuses on
// /oauth/device/token and RFC 8628's on /oauth/token.
func TestDeviceToken(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		t.Run("PendingSlowDownApprovedConsumed", func(t *testing.T) {
			da := e.deviceStart(e.public, "read:farms")
			dc := da["device_code"].(string)
			wantOAuthError(t, e.poll(e.public, dc), http.StatusBadRequest, "authorization_pending")
			wantOAuthError(t, e.poll(e.public, dc), http.StatusBadRequest, "slow_down")
			e.clock.Advance(6 * time.Second) // the interval is now 10 s
			wantOAuthError(t, e.poll(e.public, dc), http.StatusBadRequest, "slow_down")
			e.clock.Advance(16 * time.Second)
			wantOAuthError(t, e.poll(e.public, dc), http.StatusBadRequest, "authorization_pending")
			if res := e.approve(da["user_code"].(string), true); res.Status != http.StatusOK {
				t.Fatalf("approve: %d %s", res.Status, res.Body)
			}
			res := e.poll(e.public, dc)
			if res.Status != http.StatusOK || res.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("approved: %d %v %s", res.Status, res.Header, res.Body)
			}
			tok := res.json(t)
			if tok["token_type"] != "Bearer" || tok["scope"] != "read:farms" || tok["expires_in"] != float64(3600) || tok["refresh_token"] == nil {
				t.Fatalf("token answer %s", res.Body)
			}
			if st := e.apiStatus(tok["access_token"].(string)); st != http.StatusOK {
				t.Fatalf("device token: %d", st)
			}
			herdbooktest.WantEnvelope(t, e.poll(e.public, dc).res(), http.StatusUnauthorized, "AuthError", "already used")
			wantOAuthError(t, e.post("/oauth/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.public}, "device_code": {dc}}), http.StatusBadRequest, "invalid_grant")
		})
		t.Run("ExpiryAfter900Seconds", func(t *testing.T) {
			late := e.deviceStart(e.public, "")
			e.clock.Advance(899 * time.Second)
			wantOAuthError(t, e.poll(e.public, late["device_code"].(string)), http.StatusBadRequest, "authorization_pending")
			e.clock.Advance(time.Second)
			herdbooktest.WantEnvelope(t, e.poll(e.public, late["device_code"].(string)).res(), http.StatusUnauthorized, "AuthError", "expired")
			wantOAuthError(t, e.post("/oauth/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.public}, "device_code": {late["device_code"].(string)}}), http.StatusBadRequest, "expired_token")
			// Nor can the user approve it any more.
			if res := e.approve(late["user_code"].(string), true); res.Status != http.StatusBadRequest {
				t.Fatalf("approving an expired code: %d", res.Status)
			}
		})
		t.Run("ApprovedButExpired", func(t *testing.T) {
			da := e.deviceStart(e.public, "")
			if res := e.approve(da["user_code"].(string), true); res.Status != http.StatusOK {
				t.Fatal(res.Status)
			}
			e.clock.Advance(oauth.DeviceCodeTTL)
			herdbooktest.WantEnvelope(t, e.poll(e.public, da["device_code"].(string)).res(), http.StatusUnauthorized, "AuthError", "expired")
		})
		t.Run("Denied", func(t *testing.T) {
			da := e.deviceStart(e.public, "")
			if res := e.approve(da["user_code"].(string), false); res.Status != http.StatusOK {
				t.Fatalf("deny: %d %s", res.Status, res.Body)
			}
			herdbooktest.WantEnvelope(t, e.poll(e.public, da["device_code"].(string)).res(), http.StatusUnauthorized, "AuthError", "denied")
			wantOAuthError(t, e.post("/oauth/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.public}, "device_code": {da["device_code"].(string)}}), http.StatusBadRequest, "access_denied")
			// A decided code cannot be decided again.
			if res := e.approve(da["user_code"].(string), true); res.Status != http.StatusBadRequest {
				t.Fatalf("approving a denied code: %d", res.Status)
			}
		})
		t.Run("BoundToClient", func(t *testing.T) {
			da := e.deviceStart(e.public, "read:farms")
			if res := e.approve(da["user_code"].(string), true); res.Status != http.StatusOK {
				t.Fatal(res.Status)
			}
			dc := da["device_code"].(string)
			herdbooktest.WantEnvelope(t, e.poll(e.observer, dc).res(), http.StatusUnauthorized, "AuthError", "another client")
			herdbooktest.WantEnvelope(t, e.poll("nobody", dc).res(), http.StatusUnauthorized, "AuthError", "")
			wantOAuthError(t, e.post("/oauth/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.observer}, "device_code": {dc}}), http.StatusBadRequest, "invalid_grant")
			// The rightful client still gets its token.
			if res := e.poll(e.public, dc); res.Status != http.StatusOK {
				t.Fatalf("rightful client: %d %s", res.Status, res.Body)
			}
		})
		t.Run("ErrDisallowedPermission", func(t *testing.T) {
			e.client(oauth.ClientInput{ClientID: "shrinking", Name: "Shrinking", Public: true, Scopes: []string{"read:farms", "write:farms"}})
			da := e.deviceStart("shrinking", "read:farms write:farms")
			if res := e.approve(da["user_code"].(string), true); res.Status != http.StatusOK {
				t.Fatal(res.Status)
			}
			if err := e.app.DB.Client.OAuthClient.Update().Where(oauthclient.ClientID("shrinking")).
				SetScopes([]string{"read:farms"}).Exec(context.Background()); err != nil {
				t.Fatal(err)
			}
			herdbooktest.WantEnvelope(t, e.poll("shrinking", da["device_code"].(string)).res(), http.StatusUnauthorized, "AuthError", "write:farms")
		})
		t.Run("ErrInvalidCode", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, e.poll(e.public, oauth.NewSecret("hbdc_")).res(), http.StatusUnauthorized, "AuthError", "invalid")
		})
		t.Run("MalformedBody", func(t *testing.T) {
			for _, tc := range []struct {
				name string
				res  func() response
			}{
				{"ErrNoGrantType", func() response {
					return e.post("/oauth/device/token", url.Values{"client_id": {e.public}, "device_code": {"x"}})
				}},
				{"ErrWrongGrantType", func() response {
					return e.post("/oauth/device/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {e.public}, "device_code": {"x"}})
				}},
				{"ErrDeviceCodeTooLong", func() response { return e.poll(e.public, strings.Repeat("d", 129)) }},
				{"ErrNoDeviceCode", func() response { return e.poll(e.public, "") }},
				{"ErrClientTooLong", func() response { return e.poll(strings.Repeat("c", 256), "x") }},
				{"ErrNotJSON", func() response { return e.postJSON("/oauth/device/token", `{"grant_type":`) }},
				{"ErrJSONNumber", func() response {
					return e.postJSON("/oauth/device/token", `{"grant_type":"`+oauth.DeviceGrantType+`","client_id":"x","device_code":5}`)
				}},
				{"ErrRepeatedField", func() response {
					return e.post("/oauth/device/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {"a", "b"}, "device_code": {"x"}})
				}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := tc.res()
					herdbooktest.WantEnvelope(t, res.res(), http.StatusBadRequest, "ValidationError", "")
					if res.Header.Get("Cache-Control") != "no-store" {
						t.Fatal("no Cache-Control: no-store")
					}
				})
			}
		})
		t.Run("JSONBody", func(t *testing.T) {
			da := e.deviceStart(e.public, "")
			res := e.postJSON("/oauth/device/token", `{"grant_type":"`+oauth.DeviceGrantType+`","client_id":"`+e.public+`","device_code":"`+da["device_code"].(string)+`"}`)
			wantOAuthError(t, res, http.StatusBadRequest, "authorization_pending")
		})
		t.Run("ConfidentialClientAuthenticatesAtTokenEndpoint", func(t *testing.T) {
			da := e.deviceStart(e.conf, "read:farms")
			dc := da["device_code"].(string)
			wantOAuthError(t, e.post("/oauth/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.conf}, "device_code": {dc}}), http.StatusUnauthorized, "invalid_client")
			wantOAuthError(t, e.post("/oauth/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.conf}, "client_secret": {e.secret}, "device_code": {dc}}), http.StatusBadRequest, "authorization_pending")
			herdbooktest.WantEnvelope(t, e.post("/oauth/device/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.conf}, "client_secret": {"hbcs_wrong"}, "device_code": {dc}}).res(), http.StatusUnauthorized, "Unauthorized", "")
		})
	})
}
