package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// postForm sends a form body and returns the answer.
func postForm(t *testing.T, app *herdbooktest.App, path string, form url.Values) herdbooktest.Response {
	t.Helper()
	res, err := http.Post(app.URL+path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return herdbooktest.Response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// TestDatabaseOutage: with the database gone, GraphQL and the OAuth endpoints answer 503
// with Retry-After in their own error shapes instead of 500.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		d.SQL.Close()
		retry := func(t *testing.T, res herdbooktest.Response) {
			t.Helper()
			if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "5" {
				t.Fatalf("status %d, Retry-After %q: %s", res.Status, res.Header.Get("Retry-After"), res.Body)
			}
		}
		envelope := func(t *testing.T, res herdbooktest.Response) {
			t.Helper()
			retry(t, res)
			herdbooktest.WantEnvelope(t, res, http.StatusServiceUnavailable, "ServiceError", "temporarily unavailable")
		}
		oauthError := func(t *testing.T, res herdbooktest.Response) {
			t.Helper()
			retry(t, res)
			if e := res.JSON(t); e["error"] != "temporarily_unavailable" || e["error_description"] == "" {
				t.Fatalf("body %s", res.Body)
			}
		}
		t.Run("GraphQLBearer", func(t *testing.T) {
			// The token's lookup fails before the graph runs: still GraphQL's own shape.
			wantGraphQLUnavailable(t, app.Do("POST", "/graphql", u.Token, map[string]any{"query": "{ farms(first: 1) { totalCount } }"}))
		})
		t.Run("UserInfo", func(t *testing.T) { envelope(t, app.Do("GET", "/oauth/userinfo", u.Token, nil)) })
		t.Run("Device", func(t *testing.T) {
			envelope(t, postForm(t, app, "/oauth/device", url.Values{"client_id": {"test-client"}}))
		})
		t.Run("DeviceToken", func(t *testing.T) {
			envelope(t, postForm(t, app, "/oauth/device/token", url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"},
				"device_code": {"hbdc_x"}, "client_id": {"test-client"}}))
		})
		t.Run("Revoke", func(t *testing.T) {
			envelope(t, postForm(t, app, "/oauth/revoke", url.Values{"token": {"hbat_x"}, "client_id": {"test-client"}}))
		})
		t.Run("TokenRefreshGrant", func(t *testing.T) {
			oauthError(t, postForm(t, app, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {"test-client"}, "refresh_token": {"hbrt_x"}}))
		})
		t.Run("TokenDeviceGrant", func(t *testing.T) {
			oauthError(t, postForm(t, app, "/oauth/token", url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"},
				"client_id": {"test-client"}, "device_code": {"hbdc_x"}}))
		})
		t.Run("AuthorizePage", func(t *testing.T) {
			res := app.Do("GET", "/oauth/authorize?client_id=test-client&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&response_type=code&scope=read:farms", "", nil)
			retry(t, res)
			if !strings.Contains(string(res.Body), "try again") {
				t.Fatalf("page %s", res.Body)
			}
		})
	})
	t.Run("GraphQLUnavailableCode", func(t *testing.T) {
		// The token store answers; the service's database refuses connections.
		d := herdbooktest.MustDB(t, "sqlite")
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{ServiceDB: herdbooktest.UnreachableDB(t)})
		u, err := herdbook.New(d.Client).CreateUser(context.Background(), herdbook.UserInput{PhoneNumberLocal: "+4790000002"})
		if err != nil {
			t.Fatal(err)
		}
		wantGraphQLUnavailable(t, app.Do("POST", "/graphql", app.MustToken(u.ID), map[string]any{"query": "{ farms(first: 1) { totalCount } }"}))
	})
}

// wantGraphQLUnavailable fails unless res is a 503 with Retry-After whose body is a GraphQL
// answer (never the REST envelope) with an UNAVAILABLE error.
func wantGraphQLUnavailable(t *testing.T, res herdbooktest.Response) {
	t.Helper()
	if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "5" {
		t.Fatalf("status %d, Retry-After %q: %s", res.Status, res.Header.Get("Retry-After"), res.Body)
	}
	var body struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil || body.Error != nil || len(body.Errors) != 1 ||
		body.Errors[0].Extensions["code"] != "UNAVAILABLE" || !strings.Contains(body.Errors[0].Message, "temporarily unavailable") {
		t.Fatalf("not a GraphQL UNAVAILABLE answer: %s", res.Body)
	}
}
