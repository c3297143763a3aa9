package rest_test

import (
	"fmt"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestIdentifiersREST replays issue 19's identity defects through the API: every reader
// form of an EID reaches the register as its 15 digits (ISO 11784/11785, ISO 24631-6), the
// impossible codes are refused naming the field, test codes follow the farm's
// allow_test_tags, official UK tags are held to their check digit, and q= finds an animal by
// the last 4 to 6 digits of any identifier in one indexed statement.
func TestIdentifiersREST(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Identity Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		base := "/v1/farm/" + f.ID.String()
		eidOf := func(a map[string]any) string {
			for _, id := range a["profile"].(map[string]any)["identifiers"].([]any) {
				if m := id.(map[string]any); m["scheme"] == "eid" {
					return m["value"].(string)
				}
			}
			return ""
		}

		// One animal per reader form; each is stored as its canonical 15 digits.
		ids := map[string]string{}
		for i, c := range []struct{ in, want string }{
			{"0826000301234003", "826000301234003"},           // ASCII 16 (Tru-Test, FarmIT): issue 19's corruption
			{"826 052636100657", "826052636100657"},           // 3 + space + 12
			{"372000000000101", "372000000000101"},            // 15 digits
			{"33A.0011F47754", "826000301234004"},             // dot-hex
			{"8000CE8011F47755", "826000301234005"},           // raw hex, animal flag first
			{"6AEE2F8801730001", "826000301234006"},           // raw hex as transmitted (LSB first)
			{"LA 982 000001088420", "982000001088420"},        // Allflex panel reader line
			{"A 00000 0 964 000000123456", "964000000123456"}, // TIRIS S2000 line
		} {
			a := wantStatus(t, app.Do("POST", base+"/animals", editor.Token, map[string]any{"tag": fmt.Sprintf("E-%d", i), "eid": c.in}), 201)
			if got := eidOf(a); got != c.want {
				t.Fatalf("eid %q stored as %q, want %s", c.in, got, c.want)
			}
			ids[c.want] = a["id"].(string)
		}

		// Impossible codes: 400 naming the field, nothing written.
		for _, c := range []struct{ name, eid, says string }{
			{"ErrNationalAbove2To38", "826301234200033", "above 274877906943"},
			{"ErrCountry000", "000012903989251", "country code 000"},
			{"ErrNotISO3166", "123000000000001", "not an ISO 3166-1 numeric country code"},
			{"ErrFlag0", "0000F9C2DFDC1C34", "animal flag 0"},
			{"ErrIndustrial", "R00060000000000123456", "non-animal"},
			{"ErrTestCode", "3E7.1CBE991A14", "allow_test_tags"},
			{"ErrTestCodeDecimal", "999000000000001", "allow_test_tags"},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := app.Do("POST", base+"/animals", editor.Token, map[string]any{"tag": "BAD", "eid": c.eid})
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", c.says)
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "eid")
				// The same value in an identifier fact of a record names the fact's value.
				body := map[string]any{"animal_ids": []string{ids["372000000000101"]}, "name": "Tag", "type": "GENETIC", "applied_at": "2026-01-01T00:00:00Z",
					"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
						"kind": "identifier", "animal_id": ids["372000000000101"], "scheme": "eid", "value": c.eid, "start_date": "2026-01-01"}}}}}
				res = app.Do("POST", base+"/records", editor.Token, body)
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "record_items[0].metadata.birth_history.value")
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", c.says)
			})
		}

		// Test transponders (999) on a farm whose settings allow them.
		wantStatus(t, app.Do("PUT", base+"/settings", owner.Token, map[string]any{"allow_test_tags": true}), 200)
		test := wantStatus(t, app.Do("POST", base+"/animals", editor.Token, map[string]any{"tag": "TEST", "eid": "3E7.1CBE991A14"}), 201)
		if got := eidOf(test); got != "999123456789012" {
			t.Fatalf("test code stored as %q", got)
		}
		wantStatus(t, app.Do("PUT", base+"/settings", owner.Token, map[string]any{"allow_test_tags": false}), 200)

		// Official UK tags: a wrong check digit is refused naming the field and the digit the
		// rule gives; a right one is respaced as printed.
		herdbooktest.WantEnvelope(t, app.Do("POST", base+"/animals", editor.Token, map[string]any{"tag": "UK 123456 700001"}), 400, "ValidationError", "gives 1")
		uk := wantStatus(t, app.Do("POST", base+"/animals", editor.Token, map[string]any{"tag": "uk123456100001"}), 201)
		if uk["tag"] != "UK 123456 100001" {
			t.Fatalf("tag stored as %v", uk["tag"])
		}
		visual := map[string]any{"animal_ids": []string{ids["372000000000101"]}, "name": "Tag", "type": "GENETIC", "applied_at": "2026-01-01T00:00:00Z",
			"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
				"kind": "identifier", "animal_id": ids["372000000000101"], "scheme": "visual", "value": "UK 284205 600016", "start_date": "2026-01-01"}}}}}
		herdbooktest.WantEnvelope(t, app.Do("POST", base+"/records", editor.Token, visual), 400, "ValidationError", "gives 7")
		visual["record_items"].([]any)[0].(map[string]any)["metadata"].(map[string]any)["birth_history"].(map[string]any)["value"] = "UK284205 700016"
		wantStatus(t, app.Do("POST", base+"/records", editor.Token, visual), 201)

		// Search by the last 4 to 6 digits of any identifier, by an EID in any form and by
		// an official tag in any spacing.
		for _, c := range []struct{ q, want string }{
			{"4003", ids["826000301234003"]},
			{"234003", ids["826000301234003"]},
			{"0826000301234003", ids["826000301234003"]},
			{"0101", ids["372000000000101"]},
			{"00016", ids["372000000000101"]}, // its visual tag UK 284205 700016
			{"UK284205700016", ids["372000000000101"]},
			{"UK 123456 100001", uk["id"].(string)},
		} {
			list := wantStatus(t, app.Do("GET", base+"/animals?q="+strings.ReplaceAll(c.q, " ", "%20"), reader.Token, nil), 200)
			if list["total"] != float64(1) || list["records"].([]any)[0].(map[string]any)["id"] != c.want {
				t.Fatalf("q=%s: %v", c.q, list)
			}
		}
		// The last-digits search is one statement more than the plain list, however many
		// identifiers the farm has.
		plain := app.Queries(func() { wantStatus(t, app.Do("GET", base+"/animals", reader.Token, nil), 200) })
		byDigits := app.Queries(func() { wantStatus(t, app.Do("GET", base+"/animals?q=4003", reader.Token, nil), 200) })
		for i := range 20 {
			wantStatus(t, app.Do("POST", base+"/animals", editor.Token, map[string]any{"tag": fmt.Sprintf("M-%d", i), "eid": fmt.Sprintf("826%012d", 500000+i)}), 201)
		}
		if more := app.Queries(func() { wantStatus(t, app.Do("GET", base+"/animals?q=4003", reader.Token, nil), 200) }); more != byDigits || byDigits != plain+1 {
			t.Fatalf("statements: plain list %d, q=4003 %d, q=4003 with 20 more animals %d", plain, byDigits, more)
		}
	})
}

// TestIdentifiersImport: the CSV import reads every reader form and refuses impossible
// codes and wrong check digits with the row and column.
func TestIdentifiersImport(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Import Identity Farm")
		file := "tag,eid\nC-1,0826000301234003\nuk 123456 100001,33A.0011F47754\n"
		res := importCSV(t, app, f.ID, owner.Token, "", file)
		if res.Status != 201 {
			t.Fatalf("import: %d %s", res.Status, res.Body)
		}
		list := wantStatus(t, app.Do("GET", "/v1/farm/"+f.ID.String()+"/animals?q=4003", owner.Token, nil), 200)
		if list["total"] != float64(1) || list["records"].([]any)[0].(map[string]any)["tag"] != "C-1" {
			t.Fatalf("q=4003 after the import: %v", list)
		}
		list = wantStatus(t, app.Do("GET", "/v1/farm/"+f.ID.String()+"/animals?q=826000301234004", owner.Token, nil), 200)
		if list["total"] != float64(1) || list["records"].([]any)[0].(map[string]any)["tag"] != "UK 123456 100001" {
			t.Fatalf("the dot-hex row: %v", list)
		}
		bad := "tag,eid\nB-1,826301234200033\nB-2,000012903989251\nUK 123456 700001,\n"
		res = importCSV(t, app, f.ID, owner.Token, "", bad)
		entries := envelopeEntries(t, res)
		if res.Status != 400 || len(entries) != 3 {
			t.Fatalf("import of bad codes: %d %s", res.Status, res.Body)
		}
		for i, want := range []struct {
			row    float64
			column string
			says   string
		}{{2, "eid", "above 274877906943"}, {3, "eid", "country code 000"}, {4, "tag", "gives 1"}} {
			e := entries[i]
			if e["row"] != want.row || e["column"] != want.column || !strings.Contains(e["message"].(string), want.says) {
				t.Fatalf("entry %d: %v, want row %v column %s saying %q", i, e, want.row, want.column, want.says)
			}
		}
		// A test code is checked against the farm's settings, after the cells.
		res = importCSV(t, app, f.ID, owner.Token, "", "tag,eid\nB-4,999000000000001\n")
		if entries = envelopeEntries(t, res); res.Status != 400 || len(entries) != 1 || entries[0]["row"] != 2.0 ||
			entries[0]["column"] != "eid" || !strings.Contains(entries[0]["message"].(string), "allow_test_tags") {
			t.Fatalf("import of a test code: %d %s", res.Status, res.Body)
		}
	})
}
