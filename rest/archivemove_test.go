package rest_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestFarmArchiveSQLiteToPostgres covers issue 28, deliverable 3: a farm that ran a breeding
// year (AI from an outside sire with its straw, an embryo transfer from an outside donor, a
// hand mating, twins with a stillborn calf, weaning, voids and amendments) moves from a
// server on SQLite to one on PostgreSQL through the archive, and every GET answer of the new
// farm is the old one's with the ids mapped. The people move with it: the PostgreSQL server
// holds the authors' accounts under the same ids (the archive keeps author ids, and names them
// in herdbook:users), and the owner imports. It needs HERDBOOK_TEST_DATABASE_URL.
func TestFarmArchiveSQLiteToPostgres(t *testing.T) {
	t.Parallel()
	pg := herdbooktest.MustDB(t, "postgres") // skips without a PostgreSQL URL
	from := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	to := herdbooktest.NewApp(t, pg)
	owner, editor := from.MustUser(), from.MustUser()
	f := from.MustFarm(owner, "Moving Farm")
	from.MustMember(f.ID, editor, herdbook.RoleEditor)
	ids, moments := archiveFarm(t, from, owner, editor, f.ID.String())
	base := "/v1/farm/" + f.ID.String()
	archive := wantStatusBody(t, from.Do("GET", base+"/archive", owner.Token, nil), 200)

	users, err := from.DB.Client.User.Query().All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if err := to.DB.Client.User.Create().SetID(u.ID).SetNillableFullName(u.FullName).SetPhoneNumberLocal(u.PhoneNumberLocal).
			SetNillableEmail(u.Email).SetCreatedAt(u.CreatedAt).SetUpdatedAt(u.UpdatedAt).Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	token := to.MustToken(owner.ID)
	imp := to.Do("POST", "/v1/import", token, json.RawMessage(archive))
	if imp.Status != 201 {
		t.Fatalf("import on PostgreSQL: %d %s", imp.Status, imp.Body)
	}
	nbase := "/v1/farm/" + imp.JSON(t)["farm"].(map[string]any)["id"].(string)
	again := wantStatusBody(t, to.Do("GET", nbase+"/archive", token, nil), 200)
	oldIDs, newIDs := archiveIDs(t, archive), archiveIDs(t, again)
	if len(oldIDs) != len(newIDs) {
		t.Fatalf("%d ids exported, %d after the move", len(oldIDs), len(newIDs))
	}
	m := map[string]string{}
	for i := range oldIDs {
		m[oldIDs[i]] = newIDs[i]
	}
	var a herdbook.Archive
	if err := json.Unmarshal(again, &a); err != nil {
		t.Fatal(err)
	}
	if len(a.OutsideAnimals) != 2 || len(a.BirthEvents) != 5 {
		t.Fatalf("after the move: %d outside animals, %d births", len(a.OutsideAnimals), len(a.BirthEvents))
	}
	// PostgreSQL keeps instants to the microsecond, SQLite (Herdbook's text column) to the
	// nanosecond: the moved farm's instants are the old ones cut to the microsecond. And
	// PostgreSQL's jsonb keeps an object's keys in its own order (the audit trail's old and
	// new values): the answers are compared as JSON values, keys sorted.
	sameArchiveAnswers(t, from, owner.Token, base, to, token, nbase, archivePaths(ids, moments), m, sortedJSON, toMicroseconds)
}

// sortedJSON spells a JSON answer with every object's keys sorted; another answer (CSV)
// stays as it is.
func sortedJSON(s string) string {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

var fraction = regexp.MustCompile(`(\d\d:\d\d:\d\d)\.(\d+)`)

// toMicroseconds cuts every instant's fraction of a second to microseconds, as PostgreSQL
// stores it, without trailing zeros (as Go's RFC 3339 spells it).
func toMicroseconds(s string) string {
	return fraction.ReplaceAllStringFunc(s, func(x string) string {
		p := fraction.FindStringSubmatch(x)
		f := p[2]
		if len(f) > 6 {
			f = f[:6]
		}
		f = strings.TrimRight(f, "0")
		if f == "" {
			return p[1]
		}
		return p[1] + "." + f
	})
}
