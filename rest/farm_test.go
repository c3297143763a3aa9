package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestCreateFarm(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()

		t.Run("OK", func(t *testing.T) {
			for _, prefix := range []string{"/v1", "/api/v1"} {
				res := app.Do("POST", prefix+"/farm", owner.Token, `{"name":"North Field","species":"OTHER","species_other":"Alpaca"}`)
				if res.Status != http.StatusCreated {
					t.Fatalf("%s: status %d: %s", prefix, res.Status, res.Body)
				}
				body := res.JSON(t)
				if _, err := uuid.Parse(body["welcome_thread_id"].(string)); err != nil {
					t.Fatalf("welcome_thread_id: %v", err)
				}
				f := body["farm"].(map[string]any)
				for _, k := range []string{"id", "created_at", "updated_at", "name", "allow_private_threads", "current_month_start", "is_active", "species", "species_other", "farm_users"} {
					if _, ok := f[k]; !ok {
						t.Fatalf("farm lacks %q: %v", k, f)
					}
				}
				if f["name"] != "North Field" || f["species"] != "OTHER" || f["species_other"] != "Alpaca" || f["is_active"] != true || f["current_month_start"] != nil {
					t.Fatalf("farm = %v", f)
				}
				users := f["farm_users"].([]any)
				if len(users) != 1 {
					t.Fatalf("farm_users = %v", users)
				}
				m := users[0].(map[string]any)
				if m["role"] != "OWNER" || m["user_id"] != owner.ID.String() || m["farm_id"] != f["id"] {
					t.Fatalf("member = %v", m)
				}
				u := m["user"].(map[string]any)
				if u["id"] != owner.ID.String() || u["phone_number_local"] != owner.Phone || u["full_name"] == nil {
					t.Fatalf("user = %v", u)
				}
			}
		})

		bad := []struct {
			name, body, want string
		}{
			{"ErrMalformedJSON", `{"name":"North`, "body: malformed JSON"},
			{"ErrEmptyBody", ``, "body: a JSON object is required"},
			{"ErrNotAnObject", `["North Field"]`, "body: must be a JSON object"},
			{"ErrTrailingData", `{"name":"North Field","species":"CATTLE"} {}`, "body: must hold a single JSON object"},
			{"ErrNameWrongType", `{"name":12,"species":"CATTLE"}`, "name: must be a string"},
			{"ErrNameMissing", `{"species":"CATTLE"}`, "name: is required"},
			{"ErrNameTooShort", `{"name":"N","species":"CATTLE"}`, "name: must be at least 2 characters"},
			{"ErrNameBlank", `{"name":"   ","species":"CATTLE"}`, "name: must be at least 2 characters"},
			{"ErrSpeciesMissing", `{"name":"North Field"}`, "species: is required"},
			{"ErrSpeciesUnknown", `{"name":"North Field","species":"COW"}`, "species: must be one of"},
			{"ErrSpeciesLowercase", `{"name":"North Field","species":"cattle"}`, "species: must be one of"},
			{"ErrSpeciesOtherTooLong", `{"name":"North Field","species":"OTHER","species_other":"` + strings.Repeat("x", 101) + `"}`, "species_other: must be at most 100 characters"},
			{"ErrUnknownField", `{"name":"North Field","species":"CATTLE","colour":"red"}`, "colour: is not a known field"},
			{"ErrAllowPrivateWrongType", `{"name":"North Field","species":"CATTLE","allow_private_threads":true}`, "allow_private_threads: is not a known field"},
		}
		for _, tc := range bad {
			t.Run(tc.name, func(t *testing.T) {
				res := app.Do("POST", "/v1/farm", owner.Token, tc.body)
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", tc.want)
			})
		}
		t.Run("ErrNothingWrittenOnBadInput", func(t *testing.T) {
			other := app.MustUser()
			app.Do("POST", "/v1/farm", other.Token, `{"name":"X","species":"CATTLE"}`)
			res := app.Do("GET", "/v1/farm", other.Token, nil)
			if got := res.JSON(t)["total"]; got != float64(0) {
				t.Fatalf("total = %v after a refused create", got)
			}
		})
		t.Run("ErrTooLarge", func(t *testing.T) {
			big := `{"name":"` + strings.Repeat("x", 11<<20) + `","species":"CATTLE"}`
			res := app.Do("POST", "/v1/farm", owner.Token, big)
			herdbooktest.WantEnvelope(t, res, 413, "ValidationError", "larger than")
		})
		t.Run("ErrNoAuth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/farm", "", `{"name":"North Field","species":"CATTLE"}`), 401, "Unauthorized", "")
		})
		t.Run("ErrBadToken", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/farm", "hbat_not-a-token", `{"name":"North Field","species":"CATTLE"}`), 401, "Unauthorized", "invalid or expired")
		})
		t.Run("ErrBadAuthScheme", func(t *testing.T) {
			res := app.Do("GET", "/v1/farm", "", nil, "Authorization", "Basic dXNlcjpwYXNz")
			herdbooktest.WantEnvelope(t, res, 401, "Unauthorized", "Bearer")
		})
		t.Run("ErrTokenInQueryIgnored", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm?access_token="+owner.Token, "", nil), 401, "Unauthorized", "")
		})
		t.Run("ErrMissingScope", func(t *testing.T) {
			reader := app.MustToken(owner.ID, herdbook.ScopeReadFarms)
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/farm", reader, `{"name":"North Field","species":"CATTLE"}`), 403, "ForbiddenError", "write:farms")
		})
	})
}

func TestListFarms(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u, stranger := app.MustUser(), app.MustUser()
		var ids []string
		for i := 0; i < 5; i++ {
			ids = append(ids, app.MustFarm(u, "Farm "+string(rune('A'+i))).ID.String())
		}
		app.MustFarm(stranger, "Not yours")

		t.Run("OK", func(t *testing.T) {
			body := app.Do("GET", "/v1/farm", u.Token, nil).JSON(t)
			recs := body["records"].([]any)
			if body["total"] != float64(5) || len(recs) != 5 {
				t.Fatalf("total %v, %d records", body["total"], len(recs))
			}
			for i, r := range recs {
				if r.(map[string]any)["id"] != ids[i] {
					t.Fatalf("record %d is %v, want oldest first", i, r.(map[string]any)["id"])
				}
			}
		})
		t.Run("SkipTake", func(t *testing.T) {
			body := app.Do("GET", "/api/v1/farm?skip=1&take=2", u.Token, nil).JSON(t)
			recs := body["records"].([]any)
			if body["total"] != float64(5) || len(recs) != 2 || recs[0].(map[string]any)["id"] != ids[1] {
				t.Fatalf("page = %v", body)
			}
		})
		t.Run("TakeZero", func(t *testing.T) {
			body := app.Do("GET", "/v1/farm?take=0", u.Token, nil).JSON(t)
			if len(body["records"].([]any)) != 0 || body["total"] != float64(5) {
				t.Fatalf("page = %v", body)
			}
		})
		for _, tc := range []struct{ name, query, want string }{
			{"ErrSkipNegative", "skip=-1", "skip: must be 0 or more"},
			{"ErrTakeNegative", "take=-5", "take: must be 0 or more"},
			{"ErrSkipNotInteger", "skip=1.5", "skip: must be a whole number"},
			{"ErrTakeNotInteger", "take=ten", "take: must be a whole number"},
			{"ErrTakeHuge", "take=99999999999999999999", "take: must be a whole number"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm?"+tc.query, u.Token, nil), 400, "ValidationError", tc.want)
			})
		}
		t.Run("ErrMissingScope", func(t *testing.T) {
			tok := app.MustToken(u.ID, herdbook.ScopeReadRecords)
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm", tok, nil), 403, "ForbiddenError", "read:farms")
		})
		t.Run("ErrNoAuth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm", "", nil), 401, "Unauthorized", "")
		})
	})
}

func TestGetUpdateDeleteFarm(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		other := app.MustFarm(stranger, "Other Farm")
		path := "/v1/farm/" + f.ID.String()

		t.Run("GetOK", func(t *testing.T) {
			for _, p := range []string{path, "/api" + path} {
				body := app.Do("GET", p, reader.Token, nil).JSON(t)
				farm := body["farm"].(map[string]any)
				if farm["id"] != f.ID.String() || len(farm["farm_users"].([]any)) != 3 {
					t.Fatalf("%s: %v", p, body)
				}
			}
		})
		t.Run("ErrGetOtherFarm", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+other.ID.String(), owner.Token, nil), 404, "ServiceError", "not found")
		})
		t.Run("ErrGetUnknown", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+uuid.NewString(), owner.Token, nil), 404, "ServiceError", "not found")
		})
		t.Run("ErrGetBadID", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/not-a-uuid", owner.Token, nil), 400, "ValidationError", "farm_id: must be a UUID")
		})
		t.Run("ErrGetBadIDNoAuth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/not-a-uuid", "", nil), 401, "Unauthorized", "")
		})
		t.Run("ErrGetMissingScope", func(t *testing.T) {
			tok := app.MustToken(owner.ID, herdbook.ScopeReadRecords)
			herdbooktest.WantEnvelope(t, app.Do("GET", path, tok, nil), 403, "ForbiddenError", "read:farms")
		})

		t.Run("UpdateOK", func(t *testing.T) {
			res := app.Do("PUT", path, editor.Token, `{"name":"Home Farm II","allow_private_threads":true,"species":"OTHER","species_other":"Yak"}`)
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			farm := res.JSON(t)["farm"].(map[string]any)
			if farm["name"] != "Home Farm II" || farm["allow_private_threads"] != true || farm["species"] != "OTHER" || farm["species_other"] != "Yak" {
				t.Fatalf("farm = %v", farm)
			}
		})
		t.Run("UpdateNullClearsSpeciesOther", func(t *testing.T) {
			farm := app.Do("PUT", "/api"+path, owner.Token, `{"species_other":null}`).JSON(t)["farm"].(map[string]any)
			if farm["species_other"] != nil || farm["name"] != "Home Farm II" {
				t.Fatalf("farm = %v", farm)
			}
		})
		t.Run("UpdateEmptyBodyKeepsAll", func(t *testing.T) {
			farm := app.Do("PUT", path, owner.Token, `{}`).JSON(t)["farm"].(map[string]any)
			if farm["name"] != "Home Farm II" || farm["allow_private_threads"] != true {
				t.Fatalf("farm = %v", farm)
			}
		})
		for _, tc := range []struct{ name, body, want string }{
			{"ErrUpdateNameNull", `{"name":null}`, "name: may be left out but not null"},
			{"ErrUpdateNameShort", `{"name":"x"}`, "name: must be at least 2 characters"},
			{"ErrUpdateFlagWrongType", `{"allow_private_threads":"yes"}`, "allow_private_threads: must be a boolean"},
			{"ErrUpdateSpecies", `{"species":"DRAGON"}`, "species: must be one of"},
			{"ErrUpdateMalformed", `{"name":`, "body: malformed JSON"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("PUT", path, owner.Token, tc.body), 400, "ValidationError", tc.want)
			})
		}
		t.Run("ErrUpdateReaderRole", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("PUT", path, reader.Token, `{"name":"Mine now"}`), 401, "Unauthorized", "EDITOR")
		})
		t.Run("ErrUpdateOtherFarm", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("PUT", "/v1/farm/"+other.ID.String(), owner.Token, `{"name":"Mine now"}`), 404, "ServiceError", "")
		})
		t.Run("ErrUpdateMissingScope", func(t *testing.T) {
			tok := app.MustToken(owner.ID, herdbook.ScopeReadFarms)
			herdbooktest.WantEnvelope(t, app.Do("PUT", path, tok, `{"name":"Nope"}`), 403, "ForbiddenError", "write:farms")
		})

		t.Run("ErrDeleteEditorRole", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("DELETE", path, editor.Token, nil), 401, "Unauthorized", "OWNER")
		})
		t.Run("ErrDeleteOtherFarm", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("DELETE", "/v1/farm/"+other.ID.String(), owner.Token, nil), 404, "ServiceError", "")
		})
		t.Run("DeleteOK", func(t *testing.T) {
			res := app.Do("DELETE", path, owner.Token, nil)
			if res.Status != 204 || len(res.Body) != 0 {
				t.Fatalf("status %d body %q", res.Status, res.Body)
			}
			herdbooktest.WantEnvelope(t, app.Do("GET", path, owner.Token, nil), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("DELETE", path, owner.Token, nil), 404, "ServiceError", "")
			if total := app.Do("GET", "/v1/farm", owner.Token, nil).JSON(t)["total"]; total != float64(0) {
				t.Fatalf("deleted farm still listed: total %v", total)
			}
			// The row is kept, inactive: history may be retained.
			kept, err := d.Client.Farm.Get(herdbook.IncludeInactive(app.Ctx(owner)), f.ID)
			if err != nil || kept.IsActive {
				t.Fatalf("kept = %v, %v", kept, err)
			}
		})
	})
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	u := app.MustUser()
	t.Run("ErrUnknownRoute", func(t *testing.T) {
		herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/nothing-here", u.Token, nil), 404, "ServiceError", "no route")
		herdbooktest.WantEnvelope(t, app.Do("GET", "/v2/farm", u.Token, nil), 404, "ServiceError", "no route")
	})
	t.Run("ErrWrongMethod", func(t *testing.T) {
		res := app.Do("PATCH", "/v1/farm", u.Token, `{}`)
		herdbooktest.WantEnvelope(t, res, 405, "ServiceError", "PATCH")
		if !strings.Contains(res.Header.Get("Allow"), "GET") {
			t.Fatalf("Allow = %q", res.Header.Get("Allow"))
		}
	})
	t.Run("RequestID", func(t *testing.T) {
		res := app.Do("GET", "/v1/farm", u.Token, nil, "X-Request-Id", "abc-123")
		if res.Header.Get("X-Request-Id") != "abc-123" {
			t.Fatalf("X-Request-Id = %q", res.Header.Get("X-Request-Id"))
		}
		res = app.Do("GET", "/v1/farm", u.Token, nil, "X-Request-Id", "bad id with spaces")
		if got := res.Header.Get("X-Request-Id"); got == "" || strings.Contains(got, " ") {
			t.Fatalf("X-Request-Id = %q", got)
		}
	})
	t.Run("Health", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/readyz"} {
			if res := app.Do("GET", p, "", nil); res.Status != 200 {
				t.Fatalf("%s: %d", p, res.Status)
			}
		}
	})
}
