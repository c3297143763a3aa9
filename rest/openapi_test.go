package rest_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/rest"
)

// TestMain runs the REST tests, then checks every exchange they made against the OpenAPI
// document, requests and answers both (herdbooktest.CheckContract): an undocumented route,
// status or header, a body that does not match its schema, a request the document refuses
// that succeeded, or an operation no test reaches, fails the run.
func TestMain(m *testing.M) {
	os.Exit(herdbooktest.CheckContract(m, rest.OpenAPI, "/v1/"))
}

func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	for _, p := range []string{"/v1/openapi.json", "/api/v1/openapi.json"} {
		res := app.Do("GET", p, "", nil)
		var doc map[string]any
		if res.Status != 200 || json.Unmarshal(res.Body, &doc) != nil || doc["openapi"] != "3.2.0" ||
			doc["info"].(map[string]any)["version"] != "2026-09-06" {
			t.Fatalf("%s: %d", p, res.Status)
		}
	}
}
