package oauth_test

import (
	"os"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/rest"
)

// TestMain runs the OAuth tests, then checks every exchange they made with the OAuth
// endpoints against the OpenAPI document, requests and answers both, as the REST tests do.
func TestMain(m *testing.M) {
	os.Exit(herdbooktest.ReportSkips(herdbooktest.CheckContract(m, rest.OpenAPI, "/oauth/", "/.well-known/")))
}
