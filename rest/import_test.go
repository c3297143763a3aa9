package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// csvForm builds a multipart form with the given parts (field name, then content), the
// way a browser's file input sends one.
func csvForm(t *testing.T, parts ...string) (body []byte, contentType string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i := 0; i+1 < len(parts); i += 2 {
		p, err := w.CreateFormFile(parts[i], "herd.csv")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = p.Write([]byte(parts[i+1]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), w.FormDataContentType()
}

// importCSV posts file to the farm's import.
func importCSV(t *testing.T, app *herdbooktest.App, farmID uuid.UUID, token, query, file string, header ...string) herdbooktest.Response {
	t.Helper()
	body, ct := csvForm(t, "file", file)
	return app.Do("POST", "/v1/farm/"+farmID.String()+"/animals/import"+query, token, body, append([]string{"Content-Type", ct}, header...)...)
}

// envelopeEntries decodes the error envelope's entries with their row and column.
func envelopeEntries(t *testing.T, res herdbooktest.Response) []map[string]any {
	t.Helper()
	var env struct {
		Errors []map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(res.Body, &env); err != nil {
		t.Fatalf("%v: %s", err, res.Body)
	}
	return env.Errors
}

func farmCounts(t *testing.T, d *db.DB, farmID uuid.UUID) (animals, groups int) {
	t.Helper()
	ctx := context.Background()
	a, err := d.Client.Animal.Query().Where(animal.FarmID(farmID)).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g, err := d.Client.Group.Query().Where(group.FarmID(farmID)).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return a, g
}

func TestImportAnimals(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser(), app.MustUser()
		noScope := app.MustUser(herdbook.ScopeReadAnimals, herdbook.ScopeWriteRecords)
		f := app.MustFarm(owner, "Import Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		app.MustMember(f.ID, noScope, herdbook.RoleEditor)
		old := app.MustAnimal(owner, f.ID, "OLD-1")
		file := "\uFEFFTag,Name,eid,sex,birth_date,breed,dam,sire,group\n" +
			"C-2,Daisy's calf,,female,2026-03-20,Angus,C-1,OLD-1,Calves\n" +
			"C-1,Daisy,982 000123456789,female,2020-04-02,Angus,,,Cows;Summer herd\n" +
			"OLD-1,Bruno,,male,,,,,\n"

		t.Run("DryRun", func(t *testing.T) {
			res := importCSV(t, app, f.ID, editor.Token, "?dry_run=true", file)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			out := res.JSON(t)
			if out["dry_run"] != true || out["created"] != 2.0 || out["updated"] != 1.0 || out["groups_created"] != 3.0 {
				t.Fatalf("answer %v", out)
			}
			rows := out["animals"].([]any)
			if first := rows[0].(map[string]any); first["row"] != 2.0 || first["animal_id"] != nil || first["action"] != "created" {
				t.Fatalf("row %v", first)
			}
			if third := rows[2].(map[string]any); third["animal_id"] != old.ID.String() || third["action"] != "updated" {
				t.Fatalf("row %v", third)
			}
			if a, g := farmCounts(t, d, f.ID); a != 1 || g != 0 {
				t.Fatalf("a dry run wrote: %d animals, %d groups", a, g)
			}
		})
		t.Run("OK", func(t *testing.T) {
			res := importCSV(t, app, f.ID, editor.Token, "", file, "Idempotency-Key", "import-1")
			if res.Status != http.StatusCreated {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			out := res.JSON(t)
			if out["dry_run"] != false || out["rows"] != 3.0 || out["created"] != 2.0 || out["updated"] != 1.0 {
				t.Fatalf("answer %v", out)
			}
			if a, g := farmCounts(t, d, f.ID); a != 3 || g != 3 {
				t.Fatalf("%d animals, %d groups", a, g)
			}
			renamed, err := d.Client.Animal.Get(context.Background(), old.ID)
			if err != nil || renamed.Name == nil || *renamed.Name != "Bruno" {
				t.Fatalf("the existing tag was not updated: %v %v", renamed, err)
			}
			replay := importCSV(t, app, f.ID, editor.Token, "", file, "Idempotency-Key", "import-1")
			if replay.Status != http.StatusCreated || replay.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(replay.Body, res.Body) {
				t.Fatalf("replay %d %v: %s", replay.Status, replay.Header, replay.Body)
			}
			again := importCSV(t, app, f.ID, editor.Token, "", file)
			if out := again.JSON(t); again.Status != http.StatusCreated || out["created"] != 0.0 || out["unchanged"] != 3.0 {
				t.Fatalf("the same file again must change nothing: %d %v", again.Status, out)
			}
			if a, g := farmCounts(t, d, f.ID); a != 3 || g != 3 {
				t.Fatalf("after repeats: %d animals, %d groups", a, g)
			}
		})
		t.Run("BadFileWritesNothing", func(t *testing.T) {
			a0, g0 := farmCounts(t, d, f.ID)
			bad := "tag,name,sex,birth_date,dam,group\n" +
				"N-1,Good,female,2024-01-01,,New group\n" +
				",No tag,female,,,\n" +
				"N-3,,cow,2024-02-30,N-9,\n" +
				"N-1,Twice,,,,\n" +
				"N-5,Self,,,N-5,\n"
			res := importCSV(t, app, f.ID, editor.Token, "", bad)
			herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "row 3, tag: is required")
			got := map[string]bool{}
			for _, e := range envelopeEntries(t, res) {
				row, _ := e["row"].(float64)
				got[strings.Join([]string{string(rune('0' + int(row))), e["column"].(string)}, ":")] = true
			}
			for _, want := range []string{"3:tag", "4:sex", "4:birth_date", "5:tag", "6:dam"} {
				if !got[want] {
					t.Errorf("no error at %s: %s", want, res.Body)
				}
			}
			// The dam that names no animal is found once the cells are right.
			res = importCSV(t, app, f.ID, editor.Token, "", "tag,dam\nN-1,N-9\n")
			herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "row 2, dam: N-9 is neither a tag nor an EID")
			if a, g := farmCounts(t, d, f.ID); a != a0 || g != g0 {
				t.Fatalf("a bad file wrote: %d→%d animals, %d→%d groups", a0, a, g0, g)
			}
		})
		t.Run("FileErrors", func(t *testing.T) {
			path := "/v1/farm/" + f.ID.String() + "/animals/import"
			for name, tc := range map[string]struct{ file, want string }{
				"Empty":         {"", "file: is empty"},
				"HeaderOnly":    {"tag,name\n", "file: has a header but no rows"},
				"UnknownColumn": {"tag,colour\nA,red\n", "row 1, colour: is not a column this import reads"},
				"NoTagColumn":   {"name\nDaisy\n", "row 1, tag: the column tag is required"},
				"DupColumn":     {"tag,tag\nA,B\n", "row 1, tag: is given more than once"},
				"Width":         {"tag,name\nA\n", "row 2: has 1 cells; the header has 2"},
				"Quote":         {"tag,name\nA,\"open\n", "is not valid CSV"},
				"ControlChar":   {"tag,name\nA,B\x00C\n", "row 2, name: must not contain control characters"},
				"BadEID":        {"tag,eid\nA,12345\n", "row 2, eid: must be an ISO 11784 EID"},
				// genetic_dam (issue 28.7): an embryo-transfer calf's donor, on its birth.
				"GeneticDamUnknown":  {"tag,genetic_dam\nA,NOPE-1\n", "row 2, genetic_dam: NOPE-1 is neither a tag nor an EID"},
				"GeneticDamNoBirth":  {"tag,sex,genetic_dam\nGD-1,female,\nX-1,male,GD-1\n", "row 3, genetic_dam: needs a dam of this farm and a birth_date"},
				"GeneticDamIsTheDam": {"tag,sex,dam,genetic_dam,birth_date\nGD-1,female,,,\nX-1,male,GD-1,GD-1,2026-01-01\n", "row 3, genetic_dam: must differ from the animal, its dam and its sire"},
				"GeneticDamMale":     {"tag,sex,dam,genetic_dam,birth_date\nGD-1,female,,,\nGD-2,male,,,\nX-1,male,GD-1,GD-2,2026-01-01\n", "row 4, genetic_dam: GD-2 is recorded as male"},
			} {
				t.Run(name, func(t *testing.T) {
					herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, editor.Token, "", tc.file), 400, "ValidationError", tc.want)
				})
			}
			t.Run("NoFilePart", func(t *testing.T) {
				body, ct := csvForm(t, "other", "tag\nA\n")
				herdbooktest.WantEnvelope(t, app.Do("POST", path, editor.Token, body, "Content-Type", ct), 400, "ValidationError", "other: is not a field of this form")
				body, ct = csvForm(t)
				herdbooktest.WantEnvelope(t, app.Do("POST", path, editor.Token, body, "Content-Type", ct), 400, "ValidationError", "file: is required")
				body, ct = csvForm(t, "file", "tag\nA\n", "file", "tag\nB\n")
				herdbooktest.WantEnvelope(t, app.Do("POST", path, editor.Token, body, "Content-Type", ct), 400, "ValidationError", "one part only")
			})
			t.Run("NotMultipart", func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("POST", path, editor.Token, "tag\nA\n", "Content-Type", "text/csv"), 400, "ValidationError", "multipart/form-data")
			})
			t.Run("DryRunValue", func(t *testing.T) {
				herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, editor.Token, "?dry_run=maybe", "tag\nA\n"), 400, "ValidationError", "dry_run: must be true or false")
			})
		})
		t.Run("Access", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, "", "", "tag\nA\n"), 401, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, noScope.Token, "", "tag\nA\n"), 403, "ForbiddenError", "write:animals")
			herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, stranger.Token, "", "tag\nA\n"), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, reader.Token, "", "tag\nA\n"), 401, "Unauthorized", "EDITOR")
			// A stranger learns nothing from a malformed body: access is checked first.
			herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, stranger.Token, "", "tag,colour\n"), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, importCSV(t, app, uuid.New(), owner.Token, "", "tag\nA\n"), 404, "ServiceError", "")
		})
	})
}

// registerCSV reads a farm's animals.csv without the columns that hold this farm's ids,
// which differ from farm to farm by nature.
func registerCSV(t *testing.T, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID) [][]string {
	t.Helper()
	rows := readCSV(t, app.Do("GET", "/v1/farm/"+farmID.String()+"/animals.csv", u.Token, nil))
	var keep []int
	for i, h := range rows[0] {
		if h != "id" && h != "dam_id" && h != "sire_id" && h != "group_ids" {
			keep = append(keep, i)
		}
	}
	out := make([][]string, len(rows))
	for r, row := range rows {
		for _, i := range keep {
			out[r] = append(out[r], row[i])
		}
	}
	return out
}

func TestCSVRoundTrip(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		ctx := app.Ctx(owner)
		src := app.MustFarm(owner, "Source")
		str := func(s string) *string { return &s }
		mk := func(in herdbook.AnimalInput) uuid.UUID {
			t.Helper()
			a, err := app.Service.CreateAnimal(ctx, src.ID, in)
			if err != nil {
				t.Fatal(err)
			}
			return a.ID
		}
		dam := mk(herdbook.AnimalInput{Tag: "D-1", Name: str("Daisy"), Sex: str("female"), BirthDate: str("2019-04-02"), Breed: str("Angus"), EID: str("982 000123456789")})
		sire := mk(herdbook.AnimalInput{Tag: "B-1", Name: str("Bruno"), Sex: str("male"), BirthDate: str("2018-03-10"), Breed: str("Hereford")})
		calf := mk(herdbook.AnimalInput{Tag: "C-1", Sex: str("female"), BirthDate: str("2026-03-20"), DamID: &dam, SireID: &sire, Breed: str("Angus × Hereford")})
		mk(herdbook.AnimalInput{Tag: "X, \"odd\" tag"})
		herd := app.MustGroup(owner, src.ID, "Summer herd")
		for _, a := range []uuid.UUID{dam, calf} {
			if _, err := app.Service.RecordFact(ctx, src.ID, evidence.Fact{Kind: evidence.KindMembership, AnimalID: a.String(), GroupID: herd.ID.String(), StartDate: "2026-04-01"}); err != nil {
				t.Fatal(err)
			}
		}
		before := registerCSV(t, app, owner, src.ID)
		if len(before) != 5 {
			t.Fatalf("source register %v", before)
		}

		export := app.Do("GET", "/v1/farm/"+src.ID.String()+"/animals.csv", owner.Token, nil)
		dst := app.MustFarm(owner, "Destination")
		res := importCSV(t, app, dst.ID, owner.Token, "", string(export.Body))
		if res.Status != http.StatusCreated {
			t.Fatalf("import of an export: %d %s", res.Status, res.Body)
		}
		after := registerCSV(t, app, owner, dst.ID)
		if a, b := fmtRows(after), fmtRows(before); a != b {
			t.Fatalf("the register changed on its way:\nbefore %s\nafter  %s", b, a)
		}
		// The imported history is evidence like any other: the calf's parents are the
		// destination's animals, found by their tags.
		again := importCSV(t, app, dst.ID, owner.Token, "", string(export.Body))
		if out := again.JSON(t); out["unchanged"] != 4.0 || out["facts"] != 0.0 {
			t.Fatalf("importing the same export again must change nothing: %v", out)
		}
	})
}

func fmtRows(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, "|"))
		b.WriteString("\n")
	}
	return b.String()
}
