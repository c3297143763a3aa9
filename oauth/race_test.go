package oauth_test

import (
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// racers is how many requests race for one single-use credential.
const racers = 8

// race sends the same request from racers goroutines at once and returns the answers.
func race(t *testing.T, fn func() response) []response {
	t.Helper()
	out := make([]response, racers)
	start := make(chan struct{})
	var g errgroup.Group
	for i := range racers {
		g.Go(func() error {
			<-start
			out[i] = fn()
			return nil
		})
	}
	close(start)
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return out
}

// oneWinner fails unless exactly one answer is 200 and every other an invalid_grant; it
// returns the winner's body.
func oneWinner(t *testing.T, answers []response) map[string]any {
	t.Helper()
	var winner map[string]any
	for _, a := range answers {
		switch {
		case a.Status == http.StatusOK && winner == nil:
			winner = a.json(t)
		case a.Status == http.StatusOK:
			t.Fatal("two concurrent requests both won")
		default:
			wantOAuthError(t, a, http.StatusBadRequest, "invalid_grant")
		}
	}
	if winner == nil {
		t.Fatalf("no request won: %s", answers[0].Body)
	}
	return winner
}

// TestRaces: concurrent redemption of one code, one refresh token, one approved device
// code: exactly one winner each. The losers are replays, so the code's and the refresh
// token's families end revoked.
func TestRaces(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		t.Run("CodeRedemption", func(t *testing.T) {
			for round := range 3 {
				v := verifier("x")
				code := e.code(e.public, v)
				won := oneWinner(t, race(t, func() response { return e.redeem(e.public, "", code, v) }))
				if st := e.apiStatus(won["access_token"].(string)); st != http.StatusUnauthorized {
					t.Fatalf("round %d: the winner's token survived the replays: %d", round, st)
				}
			}
		})
		t.Run("Refresh", func(t *testing.T) {
			for round := range 3 {
				rt := e.tokens()["refresh_token"].(string)
				won := oneWinner(t, race(t, func() response { return e.refresh(e.public, "", rt, "") }))
				wantOAuthError(t, e.refresh(e.public, "", won["refresh_token"].(string), ""), http.StatusBadRequest, "invalid_grant")
				if st := e.apiStatus(won["access_token"].(string)); st != http.StatusUnauthorized {
					t.Fatalf("round %d: the winner's family survived reuse: %d", round, st)
				}
			}
		})
		t.Run("DeviceCode", func(t *testing.T) {
			da := e.deviceStart(e.public, "read:farms")
			if res := e.approve(da["user_code"].(string), true); res.Status != http.StatusOK {
				t.Fatalf("approve: %d %s", res.Status, res.Body)
			}
			var won atomic.Int32
			answers := race(t, func() response {
				return e.post("/oauth/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.public}, "device_code": {da["device_code"].(string)}})
			})
			for _, a := range answers {
				if a.Status == http.StatusOK {
					won.Add(1)
				} else {
					wantOAuthError(t, a, http.StatusBadRequest, "invalid_grant")
				}
			}
			if won.Load() != 1 {
				t.Fatalf("%d winners", won.Load())
			}
		})
	})
}
