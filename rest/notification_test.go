package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// mustNotifications stores n notifications of a user with the given status and type, one
// second apart from start, as the pipeline would leave them.
func mustNotifications(tb testing.TB, c *ent.Client, farmID, userID uuid.UUID, n int, status notification.Status, typ notification.Type, start time.Time) {
	tb.Helper()
	herdbooktest.InTx(tb, c, func(ctx context.Context, c *ent.Client) error {
		return createNotifications(ctx, c, farmID, userID, n, status, typ, start)
	})
}

func createNotifications(ctx context.Context, c *ent.Client, farmID, userID uuid.UUID, n int, status notification.Status, typ notification.Type, start time.Time) error {
	b := make([]*ent.NotificationCreate, n)
	for i := range b {
		at := start.Add(time.Duration(i) * time.Second)
		nc := c.Notification.Create().SetFarmID(farmID).SetUserID(userID).SetScheduledEventID(uuid.New()).
			SetType(typ).SetStatus(status).SetTitle("Calving check due today").SetBody("Calving check is due today.").
			SetNextAttemptAt(at).SetCreatedAt(at).SetUpdatedAt(at)
		switch status {
		case notification.StatusSENT:
			nc.SetSentAt(at).SetAttempts(1)
		case notification.StatusFAILED:
			nc.SetErrorMessage("sms webhook answered 503: provider unavailable").SetAttempts(5)
		}
		b[i] = nc
	}
	for len(b) > 0 {
		k := min(len(b), 300)
		if err := c.Notification.CreateBulk(b[:k]...).Exec(ctx); err != nil {
			return err
		}
		b = b[k:]
	}
	return nil
}

func TestListNotifications(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		other := app.MustFarm(stranger, "Other")
		t0 := time.Date(2026, 3, 10, 6, 0, 0, 0, time.UTC)
		mustNotifications(t, d.Client, f.ID, owner.ID, 3, notification.StatusSENT, notification.TypeEMAIL, t0)
		mustNotifications(t, d.Client, f.ID, owner.ID, 2, notification.StatusPENDING, notification.TypeSMS, t0.Add(time.Minute))
		mustNotifications(t, d.Client, f.ID, reader.ID, 1, notification.StatusFAILED, notification.TypeSMS, t0.Add(2*time.Minute))
		mustNotifications(t, d.Client, f.ID, reader.ID, 1, notification.StatusSENT, notification.TypeIN_APP, t0.Add(3*time.Minute))
		mustNotifications(t, d.Client, other.ID, stranger.ID, 4, notification.StatusSENT, notification.TypeIN_APP, t0)
		path := "/v1/farm/" + f.ID.String() + "/notifications"
		list := func(u herdbooktest.User, query string) (int, []map[string]any) {
			t.Helper()
			res := app.Do("GET", path+query, u.Token, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			body := res.JSON(t)
			if len(body) != 2 {
				t.Fatalf("answer has keys other than notifications and total: %v", body)
			}
			var out []map[string]any
			for _, n := range body["notifications"].([]any) {
				out = append(out, n.(map[string]any))
			}
			return int(body["total"].(float64)), out
		}

		t.Run("OKFieldNames", func(t *testing.T) {
			total, items := list(owner, "?status=FAILED")
			if total != 1 || len(items) != 1 {
				t.Fatalf("total %d items %d", total, len(items))
			}
			var keys []string
			for k := range items[0] {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			want := "[created_at error_message farm_id id scheduled_event_id sent_at status type updated_at user_id]"
			if fmt.Sprint(keys) != want {
				t.Fatalf("keys %v, want %s", keys, want)
			}
			n := items[0]
			if n["status"] != "FAILED" || n["type"] != "SMS" || n["user_id"] != reader.ID.String() || n["farm_id"] != f.ID.String() ||
				n["sent_at"] != nil || !strings.Contains(n["error_message"].(string), "503") {
				t.Fatalf("notification %v", n)
			}
			if _, err := uuid.Parse(n["scheduled_event_id"].(string)); err != nil {
				t.Fatalf("scheduled_event_id %v", n["scheduled_event_id"])
			}
		})
		t.Run("OKAPIPrefix", func(t *testing.T) {
			if res := app.Do("GET", "/api"+path, owner.Token, nil); res.Status != 200 || int(res.JSON(t)["total"].(float64)) != 7 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
		})
		for _, tc := range []struct {
			name  string
			user  herdbooktest.User
			query string
			total int
			ids   int
		}{
			{"OwnerSeesAll", owner, "", 7, 7},
			{"ReaderSeesOwn", reader, "", 2, 2},
			{"StatusSENT", owner, "?status=SENT", 4, 4},
			{"StatusPENDING", owner, "?status=PENDING", 2, 2},
			{"StatusFAILEDReader", reader, "?status=FAILED", 1, 1},
			{"SkipTake", owner, "?skip=2&take=3", 7, 3},
			{"SkipPastEnd", owner, "?skip=50", 7, 0},
			{"TakeZero", owner, "?take=0", 7, 0},
			{"TakeAboveCap", owner, "?take=100000", 7, 7},
		} {
			t.Run(tc.name, func(t *testing.T) {
				total, items := list(tc.user, tc.query)
				if total != tc.total || len(items) != tc.ids {
					t.Fatalf("total %d items %d, want %d and %d", total, len(items), tc.total, tc.ids)
				}
			})
		}
		t.Run("OrderCreatedThenID", func(t *testing.T) {
			_, all := list(owner, "")
			_, page := list(owner, "?skip=2&take=3")
			for i, n := range page {
				if n["id"] != all[i+2]["id"] {
					t.Fatalf("page %d is %v, want %v", i, n["id"], all[i+2]["id"])
				}
			}
			for i := 1; i < len(all); i++ {
				if all[i-1]["created_at"].(string) > all[i]["created_at"].(string) {
					t.Fatalf("not oldest first: %v then %v", all[i-1]["created_at"], all[i]["created_at"])
				}
			}
		})
		t.Run("EmptyIsArray", func(t *testing.T) {
			res := app.Do("GET", path+"?take=0", owner.Token, nil)
			if !strings.Contains(string(res.Body), `"notifications":[]`) {
				t.Fatalf("an empty page must be [], not null: %s", res.Body)
			}
		})
		for _, tc := range []struct {
			name, query, want string
		}{
			{"ErrSkipNotNumber", "?skip=abc", "skip: must be a whole number"},
			{"ErrTakeNotNumber", "?take=1.5", "take: must be a whole number"},
			{"ErrSkipNegative", "?skip=-1", "skip: must be 0 or more"},
			{"ErrTakeNegative", "?take=-5", "take: must be 0 or more"},
			{"ErrStatusUnknown", "?status=DELIVERED", "status: must be one of FAILED, PENDING, SENT"},
			{"ErrStatusLowercase", "?status=sent", "status: must be one of"},
			{"ErrStatusEmpty", "?status=", "status: must be one of"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("GET", path+tc.query, owner.Token, nil), 400, "ValidationError", tc.want)
			})
		}
		t.Run("ErrFarmIDMalformed", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/not-a-uuid/notifications", owner.Token, nil), 400, "ValidationError", "farm_id: must be a UUID")
		})
		t.Run("ErrOtherFarm", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+other.ID.String()+"/notifications", owner.Token, nil), 404, "ServiceError", "")
		})
		t.Run("ErrNoFarm", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+uuid.NewString()+"/notifications", owner.Token, nil), 404, "ServiceError", "")
		})
		t.Run("ErrNoAuth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", path, "", nil), 401, "Unauthorized", "")
		})
		t.Run("ErrBadToken", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", path, "hbat_not-a-token", nil), 401, "Unauthorized", "")
		})
		t.Run("ErrMissingScope", func(t *testing.T) {
			tok := app.MustToken(owner.ID, herdbook.ScopeReadFarms, herdbook.ScopeWriteRecords)
			herdbooktest.WantEnvelope(t, app.Do("GET", path, tok, nil), 403, "ForbiddenError", "read:records")
		})
		t.Run("ErrMissingScopeBeforeMembership", func(t *testing.T) {
			tok := app.MustToken(owner.ID, herdbook.ScopeReadFarms)
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+other.ID.String()+"/notifications", tok, nil), 403, "ForbiddenError", "")
		})
		t.Run("ErrMethod", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", path, owner.Token, map[string]any{}), 405, "ServiceError", "")
		})
	})
}

func TestNotificationListQueryCount(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Counted")
		mustNotifications(t, d.Client, f.ID, u.ID, 200, notification.StatusSENT, notification.TypeIN_APP, time.Now().UTC())
		counts := map[int]int64{}
		for _, n := range []int{1, 10, 200} {
			counts[n] = app.Queries(func() {
				if res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/notifications?status=SENT&take="+fmt.Sprint(n), u.Token, nil); len(res.JSON(t)["notifications"].([]any)) != n {
					t.Fatalf("want %d notifications", n)
				}
			})
		}
		if counts[1] != counts[10] || counts[10] != counts[200] {
			t.Fatalf("queries grow with the page: %v", counts)
		}
		t.Logf("notification list: %d queries for any page size", counts[200])
	})
}

func BenchmarkNotificationListREST(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench")
			mustNotifications(b, app.DB.Client, f.ID, u.ID, 5000, notification.StatusSENT, notification.TypeEMAIL, time.Now().UTC())
			mustNotifications(b, app.DB.Client, f.ID, u.ID, 500, notification.StatusFAILED, notification.TypeSMS, time.Now().UTC())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/notifications?status=SENT&skip=1000&take=100", u.Token, nil); res.Status != 200 {
					b.Fatal(res.Status)
				}
			}
		})
	}
}
