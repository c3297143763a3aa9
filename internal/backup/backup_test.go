package backup_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/herdbook/herdbook/internal/backup"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestBackupUnderWriteLoad takes a backup while records are being written over HTTP, restores
// it into an empty database and file store, and finds there every write that was
// acknowledged before the backup began: the snapshot is consistent, nothing acknowledged is
// lost, and the restored database opens and migrates as a live one.
func TestBackupUnderWriteLoad(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			srcURL := herdbooktest.ScratchURL(t, dia)
			d, err := db.Open(ctx, srcURL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			app := herdbooktest.NewApp(t, d)
			owner := app.MustUser()
			farm := app.MustFarm(owner, "Backup Farm")
			cow := app.MustAnimal(owner, farm.ID, "UK 123456 700001")
			blobDir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(blobDir, "ab"), 0o750); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(blobDir, "ab", "cdef"), []byte("a scanned passport"), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(blobDir, "ab", ".upload-123"), []byte("half an upload"), 0o640); err != nil {
				t.Fatal(err)
			}

			// Writers record treatments until told to stop; each acknowledged id is noted
			// with the time its 201 arrived.
			type ack struct {
				id string
				at time.Time
			}
			var (
				mu    sync.Mutex
				acked []ack
				wg    sync.WaitGroup
			)
			stop := make(chan struct{})
			body, _ := json.Marshal(map[string]any{"animal_ids": []string{cow.ID.String()}, "name": "Weighed",
				"type": "HEALTH", "applied_at": "2026-03-01T08:00:00Z"})
			for w := 0; w < 2; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 2000; i++ {
						select {
						case <-stop:
							return
						default:
						}
						req, _ := http.NewRequest("POST", app.URL+"/v1/farm/"+farm.ID.String()+"/records", bytes.NewReader(body))
						req.Header.Set("Authorization", "Bearer "+owner.Token)
						req.Header.Set("Content-Type", "application/json")
						res, err := http.DefaultClient.Do(req)
						if err != nil {
							continue
						}
						var out struct {
							ID string `json:"id"`
						}
						_ = json.NewDecoder(res.Body).Decode(&out)
						res.Body.Close()
						if res.StatusCode == http.StatusCreated {
							mu.Lock()
							acked = append(acked, ack{out.ID, time.Now()})
							mu.Unlock()
						}
					}
				}()
			}
			time.Sleep(300 * time.Millisecond) // let the load build up
			dir := filepath.Join(t.TempDir(), "backup")
			began := time.Now()
			m, err := backup.Create(ctx, d, dir, backup.Options{DatabaseURL: srcURL, BlobDir: blobDir, Progress: func(s string) { t.Logf("%s %s", time.Since(began).Round(time.Millisecond), s) }})
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // writes go on after the snapshot too
			close(stop)
			wg.Wait()
			mu.Lock()
			defer mu.Unlock()
			var before []string
			for _, a := range acked {
				if a.at.Before(began) {
					before = append(before, a.id)
				}
			}
			if len(before) == 0 {
				t.Fatal("no write was acknowledged before the backup began: the test proves nothing")
			}
			if m.Blobs != 1 || m.Revision == "" {
				t.Fatalf("manifest: %+v", m)
			}

			// Restore into an empty database and file store.
			dstURL := emptyTarget(t, dia, m.Schema)
			dstBlobs := filepath.Join(t.TempDir(), "blobs")
			t.Logf("%s restore", time.Since(began).Round(time.Millisecond))
			if _, err := backup.Restore(ctx, dir, backup.Options{DatabaseURL: dstURL, BlobDir: dstBlobs, Progress: func(s string) { t.Logf("%s %s", time.Since(began).Round(time.Millisecond), s) }}); err != nil {
				t.Fatal(err)
			}
			r, err := db.Open(ctx, dstURL)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if n, err := r.Migrate(ctx, nil); err != nil || n != 0 {
				t.Fatalf("the restored database needed %d migrations: %v", n, err)
			}
			if r.Dialect == dialect.SQLite {
				var ok string
				if err := r.SQL.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
					t.Fatalf("integrity_check: %q %v", ok, err)
				}
			}
			ph := "?"
			if r.Dialect == dialect.Postgres {
				ph = "$1"
			}
			for _, id := range before {
				var n int
				if err := r.SQL.QueryRowContext(ctx, "SELECT COUNT(*) FROM records WHERE id = "+ph, id).Scan(&n); err != nil || n != 1 {
					t.Fatalf("acknowledged record %s is not in the restored database (%d, %v)", id, n, err)
				}
			}
			if b, err := os.ReadFile(filepath.Join(dstBlobs, "ab", "cdef")); err != nil || string(b) != "a scanned passport" {
				t.Fatalf("restored file: %q %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(dstBlobs, "ab", ".upload-123")); err == nil {
				t.Fatal("an upload in flight was backed up")
			}
			t.Logf("%d writes acknowledged before the backup, all restored; %d in all", len(before), len(acked))

			// A second restore into the now full target is refused, and a damaged backup is
			// refused before anything is written.
			if _, err := backup.Restore(ctx, dir, backup.Options{DatabaseURL: dstURL, BlobDir: t.TempDir()}); err == nil {
				t.Fatal("restored over an existing database")
			}
			if err := os.WriteFile(filepath.Join(dir, "blobs", "ab", "cdef"), []byte("tampered"), 0o640); err != nil {
				t.Fatal(err)
			}
			if _, err := backup.Read(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("a damaged backup was read: %v", err)
			}
		})
	}
}

// emptyTarget is an empty database of the dialect to restore into. PostgreSQL backups carry
// their schema, so the target is a new database of its own, dropped after the test.
func emptyTarget(t *testing.T, dia, schema string) string {
	t.Helper()
	if dia == "sqlite" {
		return "sqlite://" + filepath.Join(t.TempDir(), "restored.db")
	}
	base := os.Getenv(herdbooktest.EnvPostgres)
	admin, err := db.Open(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	name := "restore_" + strings.TrimPrefix(schema, "scratch_")
	if _, err := admin.SQL.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.SQL.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		admin.Close()
	})
	i := strings.LastIndex(base, "/")
	u := base[:i+1] + name
	if j := strings.IndexByte(base[i:], '?'); j >= 0 {
		u += base[i+j:]
	}
	if schema != "" {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + "search_path=" + schema
	}
	return u
}
