package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// testPace is a body pace scaled down for tests: a pause of 400 ms is too long, and after
// 1.5 s a body must average 2 KiB a second.
var testPace = httpapi.BodyPace{Idle: 1200 * time.Millisecond, Grace: 1500 * time.Millisecond, MinRate: 2 << 10}

// slowRequest sends a request's head and then its body in parts, waiting gap before each
// part, and returns the answer's status and body, and how long the whole exchange took. A
// part the server no longer reads is not an error: the answer tells what happened.
func slowRequest(t *testing.T, app *herdbooktest.App, head string, gap time.Duration, parts ...string) (int, string, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(app.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		time.Sleep(gap)
		if _, err := io.WriteString(conn, p); err != nil {
			break // the server gave up on the body and closed the connection
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start), err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), time.Since(start)
}

func head(method, path, token string, length int) string {
	h := method + " " + path + " HTTP/1.1\r\nHost: herdbook.test\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(length) + "\r\n"
	if token != "" {
		h += "Authorization: Bearer " + token + "\r\n"
	}
	return h + "\r\n"
}

// chunks splits s into n parts of nearly equal length.
func chunks(s string, n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, s[i*len(s)/n:(i+1)*len(s)/n])
	}
	return out
}

// TestBodyPace: a request body that stops arriving (slowloris) or trickles far too slowly
// loses its connection after the idle time, while a body that keeps arriving may take as
// long as it needs, far longer than the idle time.
func TestBodyPace(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{BodyPace: testPace})
		u := app.MustUser()
		f := app.MustFarm(u, "Slow Farm")
		animal := app.MustAnimal(u, f.ID, "A-1").ID.String()
		records := "/v1/farm/" + f.ID.String() + "/records"

		t.Run("ErrStalledBody", func(t *testing.T) {
			t.Parallel()
			// 13 of 1,000 bytes, then nothing.
			status, body, took := slowRequest(t, app, head("POST", "/v1/farm", u.Token, 1000), 0, `{"name":"Nor`)
			if status != http.StatusBadRequest || !strings.Contains(body, "body: arrived too slowly") || took > 3*time.Second {
				t.Fatalf("status %d after %v: %s", status, took, body)
			}
		})
		t.Run("ErrStalledUpload", func(t *testing.T) {
			t.Parallel()
			form := "--b\r\nContent-Disposition: form-data; name=\"farm_id\"\r\n\r\n" + f.ID.String() +
				"\r\n--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.csv\"\r\n\r\nname,weight\n"
			h := strings.Replace(head("POST", "/v1/file", u.Token, 1<<20), "application/json", "multipart/form-data; boundary=b", 1)
			status, body, took := slowRequest(t, app, h, 0, form)
			if status != http.StatusBadRequest || !strings.Contains(body, "body: arrived too slowly") || took > 3*time.Second {
				t.Fatalf("status %d after %v: %s", status, took, body)
			}
		})
		t.Run("ErrStalledAnonymousBody", func(t *testing.T) {
			t.Parallel()
			// Refused before the body is read; the unread rest must not hold the connection.
			status, _, took := slowRequest(t, app, head("POST", "/v1/farm", "", 1000), 0, `{"name":"Nor`)
			if status != http.StatusUnauthorized || took > 3*time.Second {
				t.Fatalf("status %d after %v", status, took)
			}
		})
		t.Run("ErrTrickle", func(t *testing.T) {
			t.Parallel()
			// Never silent for the idle time, but about 30 bytes a second.
			body := `{"name":"North Field","species":"CATTLE","species_other":"` + strings.Repeat("x", 60) + `"}`
			status, resBody, took := slowRequest(t, app, head("POST", "/v1/farm", u.Token, len(body)), 100*time.Millisecond, chunks(body, 33)...)
			if status != http.StatusBadRequest || !strings.Contains(resBody, "arrived too slowly") || took > 3*time.Second {
				t.Fatalf("status %d after %v: %s", status, took, resBody)
			}
		})
		t.Run("SlowButSteadyUpload", func(t *testing.T) {
			t.Parallel()
			// 40 KB in 24 parts, a part every 250 ms: 6 s in all, far beyond the idle time
			// and the grace, but never idle for long and above the minimum rate.
			item := `{"description":"` + strings.Repeat("d", 2000) + `"}`
			body := `{"animal_ids":["` + animal + `"],"name":"Slow link","type":"HEALTH","applied_at":"2026-01-01T00:00:00Z","record_items":[` +
				strings.TrimSuffix(strings.Repeat(item+",", 20), ",") + `]}`
			status, resBody, took := slowRequest(t, app, head("POST", records, u.Token, len(body)), 250*time.Millisecond, chunks(body, 24)...)
			if status != http.StatusCreated || took < 5*time.Second {
				t.Fatalf("status %d after %v: %s", status, took, resBody)
			}
		})
		t.Run("KeepAliveAfterABody", func(t *testing.T) {
			t.Parallel()
			// A body read to its end clears the deadline: the connection serves the next
			// request after a pause longer than the idle time.
			conn, err := net.Dial("tcp", strings.TrimPrefix(app.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			r := bufio.NewReader(conn)
			body := `{"name":"Kept Alive","species":"CATTLE"}`
			for i := range 2 {
				if _, err := io.WriteString(conn, head("POST", "/v1/farm", u.Token, len(body))+body); err != nil {
					t.Fatal(err)
				}
				res, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusCreated {
					t.Fatalf("request %d: status %d", i, res.StatusCode)
				}
				time.Sleep(2 * testPace.Idle)
			}
		})
	})
}
