package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/registry"
)

// TestRegistryCredentialsGraphQL (issue 29.3): the keeper's registry credentials through the
// graph as REST sets them: the OWNER saves them and turns sending on, the password is never
// answered, a reader sees whether sending is on; bad input, another's holding, no token.
func TestRegistryCredentialsGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		regs, err := herdbook.NewRegistries([]byte(strings.Repeat("r", herdbook.RegistryKeySize)), map[string]registry.Adapter{})
		if err != nil {
			t.Fatal(err)
		}
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{ServiceOptions: []herdbook.Option{herdbook.WithRegistries(regs)}})
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		res := app.Do("PUT", "/v1/farm/"+f.ID.String()+"/holding", owner.Token, map[string]any{"scheme": "uk.cph", "identifier": "34/123/1234",
			"keeper_name": "Kari Nordmann", "rule_set": "gb_cts", "time_zone": "Europe/London"})
		if res.Status != 201 {
			t.Fatalf("holding: %d %s", res.Status, res.Body)
		}
		hid := res.JSON(t)["id"].(string)
		const set = `mutation($in: RegistryCredentialsSetInput!) { registryCredentialsSet(input: $in) { credentials { adapter username sending active lastError updatedAt } } }`
		const read = `query($id: ID!) { farm(id: $id) { holding { registryCredentials { username sending active } } } }`

		if out := app.GraphQL(reader.Token, read, map[string]any{"id": f.ID.String()}); out["errors"] != nil ||
			out["data"].(map[string]any)["farm"].(map[string]any)["holding"].(map[string]any)["registryCredentials"] != nil {
			t.Fatalf("none saved: %v", out)
		}
		out := app.GraphQL(owner.Token, set, map[string]any{"in": map[string]any{"holdingID": hid, "username": "123-456-789", "password": "keeper secret", "sending": true}})
		c, _ := out["data"].(map[string]any)["registryCredentialsSet"].(map[string]any)
		if c == nil {
			t.Fatalf("set: %v", out)
		}
		cr := c["credentials"].(map[string]any)
		// No adapter serves uk.cph on this server: sending is on, but not active.
		if cr["username"] != "123-456-789" || cr["sending"] != true || cr["active"] != false || cr["adapter"] != nil {
			t.Fatalf("credentials %v", cr)
		}
		out = app.GraphQL(reader.Token, read, map[string]any{"id": f.ID.String()})
		if got := out["data"].(map[string]any)["farm"].(map[string]any)["holding"].(map[string]any)["registryCredentials"]; got == nil ||
			got.(map[string]any)["sending"] != true || strings.Contains(asJSON(out), "keeper secret") {
			t.Fatalf("a reader reads: %v", out)
		}
		t.Run("Errors", func(t *testing.T) {
			if out := app.GraphQL(reader.Token, set, map[string]any{"in": map[string]any{"holdingID": hid, "sending": false}}); errorCode(out) != "UNAUTHENTICATED" {
				t.Fatalf("a reader sets: %v", out)
			}
			if out := app.GraphQL("", set, map[string]any{"in": map[string]any{"holdingID": hid, "sending": false}}); errorCode(out) != "UNAUTHENTICATED" {
				t.Fatalf("no token: %v", out)
			}
			if out := app.GraphQL(stranger.Token, set, map[string]any{"in": map[string]any{"holdingID": hid, "sending": false}}); errorCode(out) != "NOT_FOUND" {
				t.Fatalf("a stranger: %v", out)
			}
			if out := app.GraphQL(owner.Token, set, map[string]any{"in": map[string]any{"holdingID": uuid.NewString(), "sending": false}}); errorCode(out) != "NOT_FOUND" {
				t.Fatalf("unknown holding: %v", out)
			}
			if out := app.GraphQL(owner.Token, set, map[string]any{"in": map[string]any{"holdingID": hid, "password": "a\x00b"}}); errorCode(out) != "BAD_USER_INPUT" ||
				!strings.Contains(asJSON(out), "password") {
				t.Fatalf("a control character: %v", out)
			}
			if code := inputCode(t, app, owner.Token, set, map[string]any{"in": map[string]any{"holdingID": hid, "sending": "yes"}}); code != "BAD_USER_INPUT" && code != "GRAPHQL_VALIDATION_FAILED" {
				t.Fatalf("sending yes: %s", code)
			}
			if code := inputCode(t, app, owner.Token, set, map[string]any{"in": map[string]any{"holdingID": "nope"}}); code != "BAD_USER_INPUT" && code != "GRAPHQL_VALIDATION_FAILED" {
				t.Fatalf("holdingID nope: %s", code)
			}
		})
		const del = `mutation($in: RegistryCredentialsDeleteInput!) { registryCredentialsDelete(input: $in) { holdingID } }`
		if out := app.GraphQL(owner.Token, del, map[string]any{"in": map[string]any{"holdingID": hid}}); out["errors"] != nil {
			t.Fatalf("delete: %v", out)
		}
		if out := app.GraphQL(owner.Token, del, map[string]any{"in": map[string]any{"holdingID": hid}}); errorCode(out) != "NOT_FOUND" {
			t.Fatalf("delete again: %v", out)
		}

	})
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
