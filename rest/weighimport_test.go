package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/rest"
)

// The EIDs of the weigh herd: ISO 11784 codes of manufacturer 982, written by the files
// below in the forms their scales write (15 digits, Tru-Test's ASCII 16, Digi-Star's
// reader line).
const (
	eidC1    = "982000001088420" // C-1, born 2024-01-01
	eidC2    = "982000001088421" // C-2, born 2024-01-01
	eidSold  = "982000001088422" // S-1, sold 2026-02-01
	eidP1    = "982000001088423" // P-1, bought in on 2026-03-01
	eidOther = "982000001088430" // an animal of another farm
)

// weighHerd seeds a farm for the session imports and returns its animals' ids by tag.
func weighHerd(t *testing.T, app *herdbooktest.App, owner herdbooktest.User, farmID uuid.UUID, animals map[string]string, facts func(ids map[string]string) []evidence.Fact) map[string]string {
	t.Helper()
	ids := map[string]string{}
	var all []evidence.Fact
	for tag, e := range animals {
		id := app.MustAnimal(owner, farmID, tag).ID.String()
		ids[tag] = id
		all = append(all, evidence.Fact{Kind: evidence.KindProfile, AnimalID: id, Sex: "female", BirthDate: "2024-01-01"},
			evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: id, Scheme: evidence.SchemeEID, Value: e, StartDate: "2024-01-01"})
	}
	if facts != nil {
		all = append(all, facts(ids)...)
	}
	if err := app.Service.WriteAnimalFacts(app.Ctx(owner), farmID, all); err != nil {
		t.Fatal(err)
	}
	return ids
}

func importWeighings(t *testing.T, app *herdbooktest.App, farmID uuid.UUID, token, query, file string, header ...string) herdbooktest.Response {
	t.Helper()
	body, ct := csvForm(t, "file", file)
	return app.Do("POST", "/v1/farm/"+farmID.String()+"/weighings/import"+query, token, body, append([]string{"Content-Type", ct}, header...)...)
}

// farmWeights is every weight fact of a farm, as "tag date kg", sorted.
func farmWeights(t *testing.T, d *db.DB, farmID uuid.UUID, tags map[string]string) []string {
	t.Helper()
	items, err := d.Client.RecordItem.Query().Where(recorditem.FactKind(string(evidence.KindWeight)),
		recorditem.FarmID(farmID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for tag, id := range tags {
		byID[id] = tag
	}
	var out []string
	for _, it := range items {
		var md map[string]map[string]any
		if err := json.Unmarshal(it.Metadata, &md); err != nil {
			t.Fatal(err)
		}
		f := md[herdbook.FactKey]
		out = append(out, fmt.Sprintf("%s %s %v", byID[f["animal_id"].(string)], f["date"], f["kg"]))
	}
	slices.Sort(out)
	return out
}

// TestImportWeighings: issue 31.4, session files of weigh scales over REST, on both
// databases. The layouts and their sources are in scalefile's tests and docs/csv.md.
func TestImportWeighings(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser(), app.MustUser()
		noScope := herdbooktest.User{ID: editor.ID, Token: app.MustToken(editor.ID, herdbook.ScopeReadRecords)}
		farm := app.MustFarm(owner, "Weigh Farm").ID
		other := app.MustFarm(owner, "Other Farm").ID
		app.MustMember(farm, editor, herdbook.RoleEditor)
		app.MustMember(farm, reader, herdbook.RoleReader)
		ids := weighHerd(t, app, owner, farm, map[string]string{"C-1": eidC1, "C-2": eidC2, "S-1": eidSold, "P-1": eidP1},
			func(ids map[string]string) []evidence.Fact {
				return []evidence.Fact{
					{Kind: evidence.KindSale, AnimalID: ids["S-1"], Date: "2026-02-01"},
					{Kind: evidence.KindPurchase, AnimalID: ids["P-1"], Date: "2026-03-01"},
				}
			})
		otherIDs := weighHerd(t, app, owner, other, map[string]string{"O-1": eidOther}, nil)
		_ = otherIDs
		path := "/v1/farm/" + farm.String() + "/weighings/import"

		// A Tru-Test XR5000 session as Data Link exports it (ASCII 16 EIDs, day-first
		// dates, the vendor's note and draft columns).
		truTest := "EID,VID,Weight (kg),Date,Time,Note,Draft\r\n" +
			"0" + eidC1 + ",C-1,452.5,13/03/2026,08:15:02,lame,2\r\n" +
			"0" + eidC2 + ",,398,13/03/2026,08:16:40,,\r\n"

		t.Run("DryRun", func(t *testing.T) {
			res := importWeighings(t, app, farm, editor.Token, "?dry_run=true", truTest)
			out := res.JSON(t)
			if res.Status != http.StatusOK || out["dry_run"] != true || out["recorded"] != 2.0 || out["layout"] != "header" {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if got := farmWeights(t, d, farm, ids); len(got) != 0 {
				t.Fatalf("a dry run wrote %v", got)
			}
		})
		t.Run("TruTest", func(t *testing.T) {
			var res herdbooktest.Response
			n := app.Queries(func() { res = importWeighings(t, app, farm, editor.Token, "", truTest) })
			out := res.JSON(t)
			if res.Status != http.StatusCreated || out["recorded"] != 2.0 || out["unchanged"] != 0.0 || out["rows"] != 2.0 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if got := fmt.Sprint(out["ignored_columns"]); got != "[Note Draft]" {
				t.Errorf("ignored_columns %s", got)
			}
			w := out["weighings"].([]any)[0].(map[string]any)
			if w["line"] != 2.0 || w["tag"] != "C-1" || w["eid"] != eidC1 || w["kg"] != 452.5 || w["date"] != "2026-03-13" || w["time"] != "08:15:02" || w["action"] != "recorded" || w["animal_id"] != ids["C-1"] {
				t.Errorf("weighing %v", w)
			}
			if got := strings.Join(farmWeights(t, d, farm, ids), "; "); got != "C-1 2026-03-13 452.5; C-2 2026-03-13 398" {
				t.Fatalf("weights %s", got)
			}
			t.Logf("%d statements", n)
			// Again: the history holds both, nothing is written.
			res = importWeighings(t, app, farm, editor.Token, "", truTest)
			if out := res.JSON(t); res.Status != http.StatusCreated || out["recorded"] != 0.0 || out["unchanged"] != 2.0 {
				t.Fatalf("again: %d %s", res.Status, res.Body)
			}
			if got := farmWeights(t, d, farm, ids); len(got) != 2 {
				t.Fatalf("again wrote %v", got)
			}
		})
		t.Run("GallagherDecimalComma", func(t *testing.T) {
			file := "Electronic ID;Visual ID;Weight;Condition Score;Notes\n" +
				"982 " + eidC1[3:] + ";C-1;460,5;3,5;\n"
			herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, editor.Token, "?date=2026-03-20", file), 400, "ValidationError", "row 2, weight: the file does not say whether weights are in kg or lb")
			res := importWeighings(t, app, farm, editor.Token, "?date=2026-03-20&unit=kg", file)
			if out := res.JSON(t); res.Status != http.StatusCreated || out["recorded"] != 1.0 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
		t.Run("PoundsAndVID", func(t *testing.T) {
			// Weighed by VID only; pounds converted (1000 lb = 453.59237 kg, to 0.01 kg).
			res := importWeighings(t, app, farm, editor.Token, "", "VID,Wt (lbs),Date\nC-2,1000,2026-03-21\n")
			out := res.JSON(t)
			if res.Status != http.StatusCreated || out["recorded"] != 1.0 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if w := out["weighings"].([]any)[0].(map[string]any); w["kg"] != 453.59 || w["eid"] != nil || w["time"] != nil {
				t.Fatalf("weighing %v", w)
			}
		})
		t.Run("DigiStar", func(t *testing.T) {
			// The SW2600EID manual's line form, with this farm's EID.
			res := importWeighings(t, app, farm, editor.Token, "", "A 00000 0 982 "+eidC1[3:]+", 1001,LB,$,GR,3/22/26,10:21,M\r\n")
			if out := res.JSON(t); res.Status != http.StatusCreated || out["layout"] != "digi-star-eid" || out["recorded"] != 1.0 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
		t.Run("Idempotent", func(t *testing.T) {
			file := "EID,Weight (kg),Date\n" + eidC2 + ",401,2026-03-23\n"
			first := importWeighings(t, app, farm, editor.Token, "", file, "Idempotency-Key", "session-1")
			again := importWeighings(t, app, farm, editor.Token, "", file, "Idempotency-Key", "session-1")
			if first.Status != http.StatusCreated || again.Status != http.StatusCreated || string(first.Body) != string(again.Body) {
				t.Fatalf("%d %s / %d %s", first.Status, first.Body, again.Status, again.Body)
			}
		})

		t.Run("StatementsConstant", func(t *testing.T) {
			// No statement a line: a session of 2 and one of 30 cost the same statements.
			ctx := app.Ctx(owner)
			var facts []evidence.Fact
			for i := range 30 {
				id := app.MustAnimal(owner, farm, fmt.Sprintf("W-%02d", i)).ID.String()
				facts = append(facts, evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: id, Scheme: evidence.SchemeEID,
					Value: fmt.Sprintf("9820000020%05d", i), StartDate: "2025-01-01"})
			}
			if err := app.Service.WriteAnimalFacts(ctx, farm, facts); err != nil {
				t.Fatal(err)
			}
			session := func(n int, day string) string {
				var b strings.Builder
				b.WriteString("EID,VID,Weight (kg),Date\n")
				for i := range n {
					fmt.Fprintf(&b, "9820000020%05d,W-%02d,%d,%s\n", i, i, 200+i, day)
				}
				return b.String()
			}
			count := func(file string) int64 {
				var res herdbooktest.Response
				n := app.Queries(func() { res = importWeighings(t, app, farm, editor.Token, "", file) })
				if res.Status != http.StatusCreated {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
				return n
			}
			small, large := count(session(2, "2026-05-01")), count(session(30, "2026-05-02"))
			if small != large {
				t.Fatalf("2 lines: %d statements, 30 lines: %d", small, large)
			}
			t.Logf("%d statements for 2 or 30 lines", small)
		})

		before := farmWeights(t, d, farm, ids)
		t.Run("Refused", func(t *testing.T) {
			for name, tc := range map[string]struct{ file, want string }{
				"UnknownEID":   {"EID,Weight (kg),Date\n982000009999999,400,2026-03-13\n", "row 2, eid: 982000009999999 names no animal of this farm"},
				"OtherFarmEID": {"EID,Weight (kg),Date\n" + eidOther + ",400,2026-03-13\n", "row 2, eid: " + eidOther + " names no animal of this farm"},
				"OtherFarmVID": {"VID,Weight (kg),Date\nO-1,400,2026-03-13\n", "row 2, vid: O-1 names no animal of this farm"},
				"AfterSale":    {"EID,Weight (kg),Date\n" + eidSold + ",400,2026-03-13\n", "row 2, date:"},
				"BeforeArrival": {"EID,Weight (kg),Date\n" + eidP1 + ",400,2026-02-13\n",
					"row 2, date: P-1 was not on the farm on 2026-02-13: it came onto the farm on 2026-03-01"},
				"BeforeBirth": {"EID,Weight (kg),Date\n" + eidC1 + ",40,2023-12-31\n", "row 2, date: C-1 was not on the farm on 2023-12-31"},
				"Duplicate": {"EID,Weight (kg),Date\n" + eidC1 + ",400,2026-04-01\n" + eidC1 + ",401,2026-04-01\n",
					"row 3, weight: weighs C-1 on 2026-04-01 again (line 2 weighed it that day)"},
				"VIDDisagrees": {"EID,VID,Weight (kg),Date\n" + eidC1 + ",C-2,400,2026-04-01\n", "row 2, vid: C-2 is the tag of C-2, but the EID " + eidC1 + " names C-1"},
				"Malformed":    {"this is not a session file\n", "row 1: no header line found"},
				"Empty":        {"", "file: is empty"},
				"WrongTypes":   {"EID,Weight (kg),Date,Time\n" + eidC1 + ",heavy,yesterday,noon\n", "row 2, weight: \"heavy\" is not a weight"},
				"BadEID":       {"EID,Weight (kg),Date\n12345,400,2026-04-01\n", "row 2, eid: \"12345\" is not an EID"},
				"OutOfRange":   {"EID,Weight (kg),Date\n" + eidC1 + ",-4,2026-04-01\n", "row 2, weight: \"-4\": a weight must be above 0"},
				"Ambiguous":    {"EID,Weight (kg),Date\n" + eidC1 + ",400,03/04/2026\n", "say the date order"},
				// The text rule (text.go), as the animals import's cells: no control
				// characters, valid UTF-8, in a visual id or a vendor's column name.
				"ControlChar":   {"VID,Weight (kg),Date\nC\x00-1,400,2026-04-01\n", "row 2, vid: must not contain control characters"},
				"InvalidUTF8":   {"VID,Weight (kg),Date\nC-\xff1,400,2026-04-01\n", "row 2, vid:"},
				"ControlHeader": {"VID,Weight (kg),Date,No\x01te\nC-1,400,2026-04-01,x\n", "row 1, header: must not contain control characters"},
				// One bad line among good ones: nothing is written.
				"OneBadLine": {"EID,Weight (kg),Date\n" + eidC1 + ",410,2026-04-02\n" + eidC2 + ",411,2026-04-02\n982000009999999,400,2026-04-02\n", "row 4, eid"},
			} {
				t.Run(name, func(t *testing.T) {
					herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, editor.Token, "", tc.file), 400, "ValidationError", tc.want)
				})
			}
			t.Run("EveryLine", func(t *testing.T) {
				res := importWeighings(t, app, farm, editor.Token, "", "EID,Weight (kg),Date\n982000009999999,400,2026-04-01\n"+eidSold+",400,2026-04-01\n")
				es := envelopeEntries(t, res)
				if res.Status != 400 || len(es) != 1 || es[0]["row"] != 2.0 || es[0]["column"] != "eid" {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
				// Once every EID resolves, each history problem is listed with its line.
				res = importWeighings(t, app, farm, editor.Token, "", "EID,Weight (kg),Date\n"+eidSold+",400,2026-04-01\n"+eidP1+",400,2026-02-01\n")
				es = envelopeEntries(t, res)
				if res.Status != 400 || len(es) != 2 || es[0]["row"] != 2.0 || es[0]["column"] != "date" || es[1]["row"] != 3.0 {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
			})
			t.Run("Parameters", func(t *testing.T) {
				herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, editor.Token, "?dry_run=maybe", truTest), 400, "ValidationError", "dry_run: must be true or false")
				herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, editor.Token, "?unit=stone", truTest), 400, "ValidationError", "unit: must be kg or lb")
				herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, editor.Token, "?date_order=ymd", truTest), 400, "ValidationError", "date_order: must be dmy or mdy")
				herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, editor.Token, "?date=13/03/2026", truTest), 400, "ValidationError", "date: must be a calendar date")
			})
			t.Run("Form", func(t *testing.T) {
				body, ct := csvForm(t, "other", truTest)
				herdbooktest.WantEnvelope(t, app.Do("POST", path, editor.Token, body, "Content-Type", ct), 400, "ValidationError", "other: is not a field of this form")
				herdbooktest.WantEnvelope(t, app.Do("POST", path, editor.Token, truTest, "Content-Type", "text/csv"), 400, "ValidationError", "multipart/form-data")
			})
			t.Run("TooLarge", func(t *testing.T) {
				big := "EID,Weight (kg),Date\n" + strings.Repeat(eidC1+",400,2026-04-01\n", rest.MaxImportBody/30+1)
				herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, editor.Token, "", big), http.StatusRequestEntityTooLarge, "ValidationError", "larger than")
			})
		})
		t.Run("Access", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, "", "", truTest), 401, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, noScope.Token, "", truTest), 403, "ForbiddenError", "write:records")
			herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, stranger.Token, "", truTest), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, reader.Token, "", truTest), 401, "Unauthorized", "EDITOR")
			// Access is checked before a byte of the file is judged.
			herdbooktest.WantEnvelope(t, importWeighings(t, app, farm, stranger.Token, "", "garbage"), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, importWeighings(t, app, uuid.New(), owner.Token, "", truTest), 404, "ServiceError", "")
		})
		if got := farmWeights(t, d, farm, ids); strings.Join(got, ";") != strings.Join(before, ";") {
			t.Fatalf("a refused file wrote: %v, was %v", got, before)
		}
		_ = ids
	})
}
