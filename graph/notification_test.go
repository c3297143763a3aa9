package graph_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func seedNotifications(t *testing.T, c *ent.Client, farmID, userID uuid.UUID, n int, status notification.Status) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	herdbooktest.InTx(t, c, func(ctx context.Context, c *ent.Client) error {
		for i := range n {
			at := time.Date(2026, 3, 10, 6, 0, i, 0, time.UTC)
			row, err := c.Notification.Create().SetFarmID(farmID).SetUserID(userID).SetScheduledEventID(uuid.New()).
				SetType(notification.TypeIN_APP).SetStatus(status).SetTitle("Calving check due today").SetBody("body").
				SetNextAttemptAt(at).SetCreatedAt(at).Save(ctx)
			if err != nil {
				return err
			}
			ids = append(ids, row.ID)
		}
		return nil
	})
	return ids
}

func TestNotificationsGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Graph Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		mine := seedNotifications(t, d.Client, f.ID, owner.ID, 3, notification.StatusSENT)
		theirs := seedNotifications(t, d.Client, f.ID, reader.ID, 2, notification.StatusPENDING)
		const list = `query($f: ID!, $status: NotificationStatus, $unread: Boolean, $mine: Boolean) { farm(id: $f) {
			notifications(first: 10, status: $status, unread: $unread, mine: $mine) { totalCount edges { node { id userID status type title readAt } } } } }`
		count := func(u herdbooktest.User, vars map[string]any) int {
			t.Helper()
			vars["f"] = f.ID.String()
			res := app.GraphQL(u.Token, list, vars)
			wantNoErrors(t, res)
			return int(dig(t, res, "data.farm.notifications.totalCount").(float64))
		}
		for _, tc := range []struct {
			name string
			user herdbooktest.User
			vars map[string]any
			want int
		}{
			{"OwnerSeesAll", owner, map[string]any{}, 5},
			{"OwnerMine", owner, map[string]any{"mine": true}, 3},
			{"ReaderSeesOwn", reader, map[string]any{}, 2},
			{"Status", owner, map[string]any{"status": "PENDING"}, 2},
			{"Unread", owner, map[string]any{"unread": true, "mine": true}, 3},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := count(tc.user, tc.vars); got != tc.want {
					t.Fatalf("totalCount %d, want %d", got, tc.want)
				}
			})
		}
		t.Run("NewestFirst", func(t *testing.T) {
			res := app.GraphQL(owner.Token, list, map[string]any{"f": f.ID.String(), "mine": true})
			if id := dig(t, res, "data.farm.notifications.edges.0.node.id"); id != mine[2].String() {
				t.Fatalf("first is %v, want the newest %s", id, mine[2])
			}
		})
		const mark = `mutation($f: ID!, $ids: [ID!]) { markNotificationsRead(farmID: $f, ids: $ids) }`
		t.Run("MarkRead", func(t *testing.T) {
			res := app.GraphQL(owner.Token, mark, map[string]any{"f": f.ID.String(), "ids": []string{mine[0].String(), theirs[0].String()}})
			wantNoErrors(t, res)
			if n := dig(t, res, "data.markNotificationsRead"); n != float64(1) {
				t.Fatalf("marked %v, want 1: another member's notification must not change", n)
			}
			if got := count(owner, map[string]any{"unread": true, "mine": true}); got != 2 {
				t.Fatalf("unread %d, want 2", got)
			}
			res = app.GraphQL(owner.Token, mark, map[string]any{"f": f.ID.String()})
			if n := dig(t, res, "data.markNotificationsRead"); n != float64(2) {
				t.Fatalf("marked %v, want the other 2", n)
			}
			if got := count(reader, map[string]any{"unread": true}); got != 2 {
				t.Fatalf("the reader's unread %d, want 2", got)
			}
		})
		const prefs = `mutation($f: ID, $in: ChannelPreferencesInput!) { setNotificationPreferences(farmID: $f, input: $in) {
			farmID email sms inApp source emailAddress phoneNumber } }`
		const getPrefs = `query($f: ID) { notificationPreferences(farmID: $f) { email sms inApp source emailAddress } }`
		t.Run("PreferencesRoleDefaults", func(t *testing.T) {
			res := app.GraphQL(reader.Token, getPrefs, map[string]any{"f": f.ID.String()})
			wantNoErrors(t, res)
			p := dig(t, res, "data.notificationPreferences").(map[string]any)
			if p["source"] != "ROLE" || p["email"] != false || p["sms"] != false || p["inApp"] != true {
				t.Fatalf("reader defaults %v", p)
			}
		})
		t.Run("PreferencesDefaultThenFarm", func(t *testing.T) {
			res := app.GraphQL(reader.Token, prefs, map[string]any{"in": map[string]any{"email": true, "sms": false, "inApp": true, "emailAddress": "reader@example.test"}})
			wantNoErrors(t, res)
			if p := dig(t, res, "data.setNotificationPreferences").(map[string]any); p["source"] != "DEFAULT" || p["farmID"] != nil || p["emailAddress"] != "reader@example.test" {
				t.Fatalf("default %v", p)
			}
			res = app.GraphQL(reader.Token, getPrefs, map[string]any{"f": f.ID.String()})
			if p := dig(t, res, "data.notificationPreferences").(map[string]any); p["source"] != "DEFAULT" || p["email"] != true {
				t.Fatalf("the default does not apply to the farm: %v", p)
			}
			res = app.GraphQL(reader.Token, prefs, map[string]any{"f": f.ID.String(), "in": map[string]any{"email": false, "sms": true, "inApp": false}})
			wantNoErrors(t, res)
			p := dig(t, res, "data.setNotificationPreferences").(map[string]any)
			if p["source"] != "FARM" || p["sms"] != true || p["inApp"] != false || p["emailAddress"] != "reader@example.test" || p["phoneNumber"] != reader.Phone {
				t.Fatalf("farm %v", p)
			}
		})
		t.Run("NodeOwnAndOwner", func(t *testing.T) {
			q := `query($id: ID!) { node(id: $id) { ... on Notification { id title } } }`
			for _, u := range []herdbooktest.User{reader, owner} {
				res := app.GraphQL(u.Token, q, map[string]any{"id": theirs[1].String()})
				wantNoErrors(t, res)
			}
			if res := app.GraphQL(reader.Token, q, map[string]any{"id": mine[1].String()}); errorCode(res) != "NOT_FOUND" {
				t.Fatalf("a reader read the owner's notification: %v", res)
			}
		})
		for _, tc := range []struct {
			name, query string
			vars        map[string]any
			token       string
			code        string
		}{
			{"ErrEmailAddress", prefs, map[string]any{"in": map[string]any{"email": true, "sms": false, "inApp": true, "emailAddress": "Ann <ann@example.test>"}}, owner.Token, "BAD_USER_INPUT"},
			{"ErrMarkTooMany", mark, map[string]any{"f": f.ID.String(), "ids": manyIDs(501)}, owner.Token, "BAD_USER_INPUT"},
			{"ErrFirstTooLarge", `query($f: ID!) { farm(id: $f) { notifications(first: 501) { totalCount } } }`, map[string]any{"f": f.ID.String()}, owner.Token, "BAD_USER_INPUT"},
			{"ErrOtherFarm", mark, map[string]any{"f": uuid.NewString()}, owner.Token, "NOT_FOUND"},
			{"ErrMissingScope", list, map[string]any{"f": f.ID.String()}, app.MustToken(owner.ID, herdbook.ScopeReadFarms), "FORBIDDEN"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if res := app.GraphQL(tc.token, tc.query, tc.vars); errorCode(res) != tc.code {
					t.Fatalf("code %q, want %s: %v", errorCode(res), tc.code, res)
				}
			})
		}
	})
}

func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = uuid.NewString()
	}
	return out
}
