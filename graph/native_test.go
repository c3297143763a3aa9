package graph_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// calvingFarm is a farm whose dam calved after exposures to n bulls: the birth's evidence
// names n candidates, and a purchase of the dam gives a movement comparison.
type calvingFarm struct {
	farmID, dam, herd string
	bulls             map[string]string // id -> tag
	vars              map[string]any
}

func newCalvingFarm(t *testing.T, app *herdbooktest.App, owner herdbooktest.User, n int) calvingFarm {
	t.Helper()
	f := app.MustFarm(owner, fmt.Sprintf("Calving %d", n))
	c := calvingFarm{farmID: f.ID.String(), dam: app.MustAnimal(owner, f.ID, "DAM").ID.String(),
		herd: app.MustGroup(owner, f.ID, "Herd").ID.String(), bulls: map[string]string{}}
	c.vars = map[string]any{"f": c.farmID, "dam": c.dam, "herd": c.herd}
	out := app.GraphQL(owner.Token, `mutation($f: ID!, $dam: ID!, $herd: ID!) {
		p: recordProfile(farmID: $f, input: {animalID: $dam, sex: FEMALE, birthDate: "2021-04-01", breed: "Angus"}) { id }
		m: recordMembership(farmID: $f, input: {animalID: $dam, groupID: $herd, startDate: "2025-04-01"}) { id }
		v: recordMovement(farmID: $f, input: {kind: PURCHASE, animalID: $dam, date: "2024-10-01"}) { id }
		s: putBirthSettings(farmID: $f, input: {version: 1, species: "CATTLE", gestationDays: {min: 279, max: 292}, minimumSireAgeDays: 365}) { settingsVersion }
		k: putFollowUpProtocol(farmID: $f, steps: [{name: "Weigh", offsetDays: 1}, {name: "Tag", offsetDays: 3}]) { version }
	}`, c.vars)
	wantNoErrors(t, out)
	for i := 0; i < n; i++ {
		tag := fmt.Sprintf("BULL-%d", i)
		bull := app.MustAnimal(owner, f.ID, tag).ID.String()
		c.bulls[bull] = tag
		out := app.GraphQL(owner.Token, `mutation($f: ID!, $b: ID!, $herd: ID!) {
			p: recordProfile(farmID: $f, input: {animalID: $b, sex: MALE, birthDate: "2022-03-10", breed: "Hereford"}) { id }
			e: recordExposure(farmID: $f, input: {sireID: $b, groupID: $herd, startDate: "2025-06-15", endDate: "2025-08-01"}) { id }
		}`, map[string]any{"f": c.farmID, "b": bull, "herd": c.herd})
		wantNoErrors(t, out)
	}
	return c
}

const evidencePage = `query($f: ID!, $dam: ID!) {
	birthEvidence(farmID: $f, damID: $dam, birthDate: "2026-04-20") {
		settingsStatus plannedWindowStatus conceptionWindow { startDate endDate }
		sire { status animal { id tag } candidates { animalID eligibility animal { id tag name isActive } } }
		movementComparisons { kind date relationToConception record { id name type } recordItem { id metadata } }
	}
}`

// TestGraphNative: the objects a web app fetches twice are Nodes, closed sets are enums,
// days are Dates, and references resolve to objects.
func TestGraphNative(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		c := newCalvingFarm(t, app, owner, 3)
		farmID := uuid.MustParse(c.farmID)
		app.MustMember(farmID, reader, herdbook.RoleReader)

		t.Run("EvidenceReferencesAndEnums", func(t *testing.T) {
			out := app.GraphQL(reader.Token, evidencePage, c.vars)
			wantNoErrors(t, out)
			ev := dig(t, out, "data.birthEvidence")
			if dig(t, ev, "settingsStatus") != "configured" || dig(t, ev, "sire.status") != "candidates" {
				t.Fatalf("evidence = %v", ev)
			}
			cands := dig(t, ev, "sire.candidates").([]any)
			if len(cands) != 3 {
				t.Fatalf("%d candidates, want 3: %v", len(cands), ev)
			}
			for _, cand := range cands {
				id := dig(t, cand, "animalID").(string)
				if dig(t, cand, "animal.id") != id || dig(t, cand, "animal.tag") != c.bulls[id] || dig(t, cand, "eligibility") != "plausible" {
					t.Fatalf("candidate %v: want the animal %s %s", cand, id, c.bulls[id])
				}
			}
			m := dig(t, ev, "movementComparisons.0")
			if dig(t, m, "kind") != "purchase" || dig(t, m, "relationToConception") != "before" || dig(t, m, "date") != "2024-10-01" ||
				dig(t, m, "record.type") != "MOVEMENT" || dig(t, m, "recordItem.metadata.birth_history.kind") != "purchase" {
				t.Fatalf("movement comparison = %v", m)
			}
		})

		t.Run("PreviewApproveAndTasks", func(t *testing.T) {
			out := app.GraphQL(owner.Token, `mutation($f: ID!, $dam: ID!) { createBirthPreview(farmID: $f, damID: $dam, birthDate: "2026-04-20") {
				id damID birthDate dam { tag } tasks { name dueDate } birthEvent { id }
				evidence { sire { candidates { animal { tag } } } } } }`, c.vars)
			wantNoErrors(t, out)
			p := dig(t, out, "data.createBirthPreview")
			if dig(t, p, "dam.tag") != "DAM" || dig(t, p, "birthDate") != "2026-04-20" || dig(t, p, "tasks.1.dueDate") != "2026-04-23" ||
				dig(t, p, "birthEvent") != nil || len(dig(t, p, "evidence.sire.candidates").([]any)) != 3 {
				t.Fatalf("preview = %v", p)
			}
			previewID := dig(t, p, "id").(string)

			out = app.GraphQL(owner.Token, `mutation($f: ID!, $p: ID!) { approveBirthPreview(farmID: $f, id: $p, requestID: "native-1", calves: [{tag: "NATIVE-CALF", sex: "female", status: "alive"}]) {
				id birthDate dam { tag } preview { id stale }
				tasks { id name status dueOn dueDate animalIDs animals { id tag } birthEvent { id } } } }`, map[string]any{"f": c.farmID, "p": previewID})
			wantNoErrors(t, out)
			ev := dig(t, out, "data.approveBirthPreview")
			eventID := dig(t, ev, "id").(string)
			task := dig(t, ev, "tasks.0")
			if dig(t, ev, "dam.tag") != "DAM" || dig(t, ev, "preview.id") != previewID || dig(t, task, "dueOn") != "2026-04-21" ||
				dig(t, task, "status") != "TODO" || dig(t, task, "birthEvent.id") != eventID || dig(t, task, "animals.0.tag") != "DAM" ||
				dig(t, task, "animals.0.id") != dig(t, task, "animalIDs.0") {
				t.Fatalf("approved birth = %v", ev)
			}

			// node(id:) resolves each of them, for a member; another farm's user gets nothing.
			// The approved birth is a calving (docs/breeding.md, "One birth, one operation"):
			// its birth event has the id of the calving's record, which node answers, as for
			// any calving.
			taskID := dig(t, task, "id").(string)
			for _, tc := range []struct{ id, typename string }{{taskID, "FollowUpTask"}, {previewID, "BirthPreview"}, {eventID, "Record"}} {
				out := app.GraphQL(reader.Token, `query($id: ID!) { node(id: $id) { __typename id
					... on FollowUpTask { name dueOn animals { tag } }
					... on BirthPreview { dam { tag } evidence { sire { status } } }
					... on BirthEvent { tasks { id } } } }`, map[string]any{"id": tc.id})
				wantNoErrors(t, out)
				if dig(t, out, "data.node.__typename") != tc.typename || dig(t, out, "data.node.id") != tc.id {
					t.Fatalf("node(%s) = %v, want a %s", tc.id, out, tc.typename)
				}
				if got := app.GraphQL(stranger.Token, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": tc.id}); errorCode(got) != "NOT_FOUND" {
					t.Fatalf("a stranger read the %s: %v", tc.typename, got)
				}
			}

			// The board: a connection in the board's order, paged both ways.
			out = app.GraphQL(reader.Token, `query($f: ID!) { farm(id: $f) { tasks(first: 1) { totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
				edges { cursor node { name dueOn } } } } }`, c.vars)
			wantNoErrors(t, out)
			conn := dig(t, out, "data.farm.tasks")
			if dig(t, conn, "totalCount") != float64(2) || dig(t, conn, "edges.0.node.name") != "Weigh" || dig(t, conn, "pageInfo.hasNextPage") != true ||
				dig(t, conn, "pageInfo.hasPreviousPage") != false {
				t.Fatalf("first page = %v", conn)
			}
			out = app.GraphQL(reader.Token, `query($f: ID!, $after: Cursor) { farm(id: $f) { tasks(first: 5, after: $after) { pageInfo { hasNextPage hasPreviousPage startCursor }
				edges { node { name } } } } }`, map[string]any{"f": c.farmID, "after": dig(t, conn, "pageInfo.endCursor")})
			wantNoErrors(t, out)
			second := dig(t, out, "data.farm.tasks")
			if edges := dig(t, second, "edges").([]any); len(edges) != 1 || dig(t, second, "edges.0.node.name") != "Tag" ||
				dig(t, second, "pageInfo.hasNextPage") != false || dig(t, second, "pageInfo.hasPreviousPage") != true {
				t.Fatalf("second page = %v", second)
			}
			out = app.GraphQL(reader.Token, `query($f: ID!, $before: Cursor) { farm(id: $f) { tasks(last: 5, before: $before) { edges { node { name } } } } }`,
				map[string]any{"f": c.farmID, "before": dig(t, second, "pageInfo.startCursor")})
			wantNoErrors(t, out)
			if edges := dig(t, out, "data.farm.tasks.edges").([]any); len(edges) != 1 || dig(t, edges, "0.node.name") != "Weigh" {
				t.Fatalf("last before the second page = %v", edges)
			}
			out = app.GraphQL(reader.Token, `query($f: ID!) { farm(id: $f) { done: tasks(status: DONE) { totalCount } last: tasks(last: 1) { edges { node { name } } } } }`, c.vars)
			wantNoErrors(t, out)
			if dig(t, out, "data.farm.done.totalCount") != float64(0) || dig(t, out, "data.farm.last.edges.0.node.name") != "Tag" {
				t.Fatalf("filtered and last = %v", out)
			}
			for _, q := range []string{`tasks(first: 201) { totalCount }`, `tasks(first: -1) { totalCount }`, `tasks(first: 1, last: 1) { totalCount }`} {
				if got := app.GraphQL(reader.Token, `query($f: ID!) { farm(id: $f) { `+q+` } }`, c.vars); errorCode(got) != "BAD_USER_INPUT" {
					t.Fatalf("%s: %v", q, got)
				}
			}
		})

		t.Run("ConnectionsAndNodes", func(t *testing.T) {
			body, ctype := pdfUpload(t, c.farmID)
			res := app.Do("POST", "/v1/file", owner.Token, body, "Content-Type", ctype)
			if res.Status != 201 {
				t.Fatalf("upload: %d %s", res.Status, res.Body)
			}
			fileID := dig(t, res.JSON(t), "files.0.id").(string)
			n, err := app.Service.AdminTestNotification(app.Ctx(owner), owner.ID, &farmID, "IN_APP", "Hello")
			if err != nil {
				t.Fatal(err)
			}
			out := app.GraphQL(owner.Token, `mutation($f: ID!) { t: createThread(farmID: $f, title: "Calving") { id } }`, c.vars)
			wantNoErrors(t, out)
			threadID := dig(t, out, "data.t.id").(string)
			out = app.GraphQL(owner.Token, `mutation($t: ID!) { a: postMessage(threadID: $t, body: "one") { id } b: postMessage(threadID: $t, body: "two") { id } }`, map[string]any{"t": threadID})
			wantNoErrors(t, out)
			messageID := dig(t, out, "data.a.id").(string)
			out = app.GraphQL(owner.Token, `mutation($f: ID!, $dam: ID!, $herd: ID!) { r: createRecord(farmID: $f, input: {name: "Weaning", type: HEALTH, appliedAt: "2026-05-01T00:00:00Z", animalIDs: [$dam], groupIDs: [$herd]}) { id } }`, c.vars)
			wantNoErrors(t, out)
			c.vars["r"] = dig(t, out, "data.r.id")

			out = app.GraphQL(owner.Token, `query($f: ID!, $r: ID!, $herd: ID!, $t: ID!) {
				farm(id: $f) {
					files(first: 10) { totalCount edges { node { id name mimeType } } }
					threadsConnection(first: 1) { totalCount edges { node { title } } }
					notifications(first: 10) { totalCount edges { node { id farmID userID } } }
				}
				herd: node(id: $herd) { ... on Group { animalsConnection(first: 10) { totalCount edges { node { tag } } } } }
				rec: node(id: $r) { ... on Record { animalsConnection { totalCount } } }
				thread: node(id: $t) { ... on Thread { messagesConnection(first: 1) { totalCount pageInfo { hasNextPage } edges { node { body authorID } } } } }
			}`, map[string]any{"f": c.farmID, "r": c.vars["r"], "herd": c.herd, "t": threadID})
			wantNoErrors(t, out)
			if dig(t, out, "data.farm.files.totalCount") != float64(1) || dig(t, out, "data.farm.files.edges.0.node.id") != fileID ||
				dig(t, out, "data.farm.threadsConnection.totalCount") != float64(2) || dig(t, out, "data.farm.threadsConnection.edges.0.node.title") != "Calving" ||
				dig(t, out, "data.farm.notifications.totalCount") != float64(1) || dig(t, out, "data.farm.notifications.edges.0.node.userID") != owner.ID.String() ||
				dig(t, out, "data.rec.animalsConnection.totalCount") != float64(1) ||
				dig(t, out, "data.thread.messagesConnection.totalCount") != float64(2) || dig(t, out, "data.thread.messagesConnection.edges.0.node.body") != "one" ||
				dig(t, out, "data.thread.messagesConnection.edges.0.node.authorID") != owner.ID.String() {
				t.Fatalf("connections = %v", out)
			}
			// The group's members are those its membership facts place in it today: the dam.
			if dig(t, out, "data.herd.animalsConnection.totalCount") != float64(1) || dig(t, out, "data.herd.animalsConnection.edges.0.node.tag") != "DAM" {
				t.Fatalf("herd = %v", dig(t, out, "data.herd"))
			}

			for _, tc := range []struct{ id, typename string }{
				{fileID, "File"}, {n.ID.String(), "Notification"}, {threadID, "Thread"}, {messageID, "Message"},
			} {
				out := app.GraphQL(owner.Token, `query($id: ID!) { node(id: $id) { __typename id } }`, map[string]any{"id": tc.id})
				wantNoErrors(t, out)
				if dig(t, out, "data.node.__typename") != tc.typename {
					t.Fatalf("node(%s) = %v, want a %s", tc.id, out, tc.typename)
				}
				if got := app.GraphQL(stranger.Token, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": tc.id}); errorCode(got) != "NOT_FOUND" {
					t.Fatalf("a stranger read the %s: %v", tc.typename, got)
				}
			}
		})
	})
}

// TestEvidenceReferencesAreBatched: the evidence review with its candidates' animals and its
// movements' records costs the same statements for one candidate as for five.
func TestEvidenceReferencesAreBatched(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		counts := map[int]int64{}
		for _, n := range []int{1, 5} {
			c := newCalvingFarm(t, app, owner, n)
			counts[n] = app.Queries(func() {
				out := app.GraphQL(owner.Token, evidencePage, c.vars)
				wantNoErrors(t, out)
				if got := len(dig(t, out, "data.birthEvidence.sire.candidates").([]any)); got != n {
					t.Fatalf("%d candidates, want %d", got, n)
				}
			})
		}
		if counts[1] != counts[5] {
			t.Fatalf("statements grow with the candidates: %v", counts)
		}
		t.Logf("evidence page with candidates' animals and movements' records: %d statements for any number of candidates", counts[5])
	})
}

// pdfUpload is a multipart upload of a small PDF to the farm.
func pdfUpload(t *testing.T, farmID string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.WriteField("farm_id", farmID); err != nil {
		t.Fatal(err)
	}
	w, err := mw.CreateFormFile("files", "calving.pdf")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(w, "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

// TestTaskBoardIsBatched: the task board with each task's animals and its birth's dam costs
// the same statements for one birth's tasks as for four births'.
func TestTaskBoardIsBatched(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		board := `query($f: ID!) { farm(id: $f) { tasks(first: 50) { totalCount edges { node {
			name dueOn animals { tag } birthEvent { birthDate dam { tag } } } } } } }`
		counts := map[int]int64{}
		for _, births := range []int{1, 4} {
			c := newCalvingFarm(t, app, owner, 1)
			for i := 0; i < births; i++ {
				dam := app.MustAnimal(owner, uuidOf(c.farmID), fmt.Sprintf("COW-%d", i)).ID.String()
				out := app.GraphQL(owner.Token, `mutation($f: ID!, $dam: ID!) {
					birthPreviewCreate(input: {farmID: $f, damID: $dam, birthDate: "2026-04-20"}) { birthPreview { id } } }`,
					map[string]any{"f": c.farmID, "dam": dam})
				wantNoErrors(t, out)
				out = app.GraphQL(owner.Token, `mutation($f: ID!, $p: ID!, $r: String!) { birthPreviewApprove(input: {farmID: $f, id: $p, requestID: $r, calves: [{tag: $r, sex: "female", status: "alive"}]}) { birthEvent { id } } }`,
					map[string]any{"f": c.farmID, "p": dig(t, out, "data.birthPreviewCreate.birthPreview.id"), "r": fmt.Sprint("CALF-", i)})
				wantNoErrors(t, out)
			}
			counts[births] = app.Queries(func() {
				out := app.GraphQL(owner.Token, board, map[string]any{"f": c.farmID})
				wantNoErrors(t, out)
				if got := dig(t, out, "data.farm.tasks.totalCount"); got != float64(2*births) {
					t.Fatalf("%v tasks, want %d", got, 2*births)
				}
				if tag := dig(t, out, "data.farm.tasks.edges.0.node.birthEvent.dam.tag").(string); !strings.HasPrefix(tag, "COW-") {
					t.Fatalf("dam %q", tag)
				}
			})
		}
		if counts[1] != counts[4] {
			t.Fatalf("statements grow with the births: %v", counts)
		}
		t.Logf("task board with animals, births and dams: %d statements for any number of births", counts[4])
	})
}
