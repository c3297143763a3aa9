package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
	"github.com/herdbook/herdbook/rest"
)

// operation is one method and path of the OpenAPI document, and whether it answers errors
// without a body.
type operation struct {
	method, path string
	bodiless     bool
}

// operations lists every operation of the OpenAPI document (which TestMain holds to the
// routes), except the public document itself.
func operations(t *testing.T) []operation {
	t.Helper()
	type response struct {
		Ref     string         `json:"$ref"`
		Content map[string]any `json:"content"`
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Responses map[string]response `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(rest.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	var ops []operation
	for path, methods := range doc.Paths {
		// The OAuth endpoints and the documents need no credential.
		if !strings.HasPrefix(path, "/v1/") || path == "/v1/openapi.json" {
			continue
		}
		for method, raw := range methods {
			if method == "parameters" {
				continue
			}
			var op struct {
				Responses map[string]response `json:"responses"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			unauthorized := op.Responses["401"]
			if name, ok := strings.CutPrefix(unauthorized.Ref, "#/components/responses/"); ok {
				unauthorized = doc.Components.Responses[name]
			}
			ops = append(ops, operation{strings.ToUpper(method), path, len(unauthorized.Content) == 0})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].path+ops[i].method < ops[j].path+ops[j].method })
	return ops
}

var pathParam = regexp.MustCompile(`\{[a-z_]+\}`)

// TestAuthenticationFirst: every operation answers an anonymous caller 401 before it looks at
// anything the caller sent. A malformed body, malformed ids in the path and the query, and
// bad paging were 400 for anonymous callers on some routes, telling them how the request
// would have been judged; the check order is authentication first.
func TestAuthenticationFirst(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		for _, op := range operations(t) {
			path := pathParam.ReplaceAllString(op.path, "not-a-uuid") + "?skip=-1&take=x&status=bogus&farm_id=nope&dam_id=1&birth_date=yesterday"
			t.Run(op.method+" "+op.path, func(t *testing.T) {
				for _, body := range []any{nil, `{"name":`, `{"name":"a","name":"b"}`, `[1,2]`} {
					res := app.Do(op.method, path, "", body)
					if op.bodiless {
						wantEmpty(t, res, http.StatusUnauthorized)
					} else {
						herdbooktest.WantEnvelope(t, res, http.StatusUnauthorized, "Unauthorized", "authentication required")
					}
					if res.Header.Get("WWW-Authenticate") == "" {
						t.Fatalf("%v: no WWW-Authenticate", body)
					}
				}
			})
		}
		t.Run("ErrAnonymousUpload", func(t *testing.T) {
			res := app.Do("POST", "/v1/file", "", "--x\r\nnot a form", "Content-Type", "multipart/form-data; boundary=b")
			herdbooktest.WantEnvelope(t, res, http.StatusUnauthorized, "Unauthorized", "")
		})
	})
}

// TestBirthHistoryBodiless: SPEC.md's birth-history operations answer 400, 401, 403 and 404
// without a body in every case, also when the credential is refused by the bearer
// middleware before the operation runs (an invalid, expired or malformed token, an unknown
// legacy key, two credentials at once). Our own birth-history operations keep the envelope.
func TestBirthHistoryBodiless(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Quiet Farm")
		dam := app.MustAnimal(u, f.ID, "DAM-1").ID.String()
		expired, _, err := app.Issuer.IssueAccessToken(context.Background(), "test-client", u.ID, herdbook.AllScopes, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		key, _, err := app.Issuer.CreateAPIKey(context.Background(), oauth.APIKeyInput{UserID: u.ID, Name: "k", Scopes: []string{herdbook.ScopeReadFarms}})
		if err != nil {
			t.Fatal(err)
		}
		base := "/v1/farm/" + f.ID.String() + "/birth-history"
		ops := []struct{ method, path, body string }{
			{"GET", base + "/settings", ""},
			{"PUT", base + "/settings", `{"version":1,"species":"CATTLE"}`},
			{"GET", base + "/evidence?dam_id=" + dam + "&birth_date=2026-04-01", ""},
		}
		for _, tc := range []struct {
			name   string
			header []string
			status int
		}{
			{"ErrInvalidToken", []string{"Authorization", "Bearer hbat_invalid"}, 401},
			{"ErrExpiredToken", []string{"Authorization", "Bearer " + expired}, 401},
			{"ErrMalformedAuthorization", []string{"Authorization", "Basic dTpw"}, 401},
			{"ErrEmptyBearer", []string{"Authorization", "Bearer "}, 401},
			{"ErrUnknownAPIKey", []string{"X-API-Key", "hbak_unknown"}, 401},
			{"ErrAPIKeyAsBearer", []string{"Authorization", "Bearer hbak_whatever"}, 403},
			{"ErrTwoCredentials", []string{"Authorization", "Bearer " + u.Token, "X-API-Key", key}, 400},
			{"ErrAPIKeyLacksScope", []string{"X-API-Key", key}, 403},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, op := range ops {
					var body any
					if op.body != "" {
						body = op.body
					}
					wantEmpty(t, app.Do(op.method, op.path, "", body, tc.header...), tc.status)
				}
			})
		}
		t.Run("ErrNotMember", func(t *testing.T) {
			wantEmpty(t, app.Do("GET", base+"/settings", app.MustUser().Token, nil), 404)
		})
		t.Run("ProtocolKeepsTheEnvelope", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/protocol", "hbat_invalid", nil), 401, "Unauthorized", "invalid or expired")
		})
	})
}
