package graph_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestMutationConvention runs every mutation of the convention (one input object, one
// payload type) through a farm's life, and checks that each one is shaped that way and
// each older mutation is deprecated.
func TestMutationConvention(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, friend := app.MustUser(), app.MustUser()
		v := map[string]any{"friend": friend.Phone}
		do := func(t *testing.T, query string) map[string]any {
			t.Helper()
			out := app.GraphQL(owner.Token, query, v)
			wantNoErrors(t, out)
			return out
		}

		out := do(t, `mutation { farmCreate(input: {name: "Convention Farm", species: CATTLE}) { farm { id name } welcomeThread { id title } } }`)
		v["f"] = dig(t, out, "data.farmCreate.farm.id")
		v["welcome"] = dig(t, out, "data.farmCreate.welcomeThread.id")
		out = do(t, `mutation($f: ID!) { farmUpdate(input: {id: $f, allowPrivateThreads: true, speciesOther: null}) { farm { allowPrivateThreads } } }`)
		if dig(t, out, "data.farmUpdate.farm.allowPrivateThreads") != true {
			t.Fatalf("farmUpdate = %v", out)
		}
		out = do(t, `mutation($f: ID!, $friend: String!) { memberAdd(input: {farmID: $f, phoneNumberLocal: $friend, role: READER}) { member { id role } } }`)
		v["m"] = dig(t, out, "data.memberAdd.member.id")
		out = do(t, `mutation($m: ID!) { memberUpdate(input: {id: $m, role: EDITOR}) { member { role } } }`)
		if dig(t, out, "data.memberUpdate.member.role") != "EDITOR" {
			t.Fatalf("memberUpdate = %v", out)
		}
		out = do(t, `mutation($f: ID!) {
			dam: animalCreate(input: {farmID: $f, tag: "COW-1"}) { animal { id tag } }
			bull: animalCreate(input: {farmID: $f, tag: "BULL-1", name: "Ferdinand"}) { animal { id } }
			spare: animalCreate(input: {farmID: $f, tag: "SPARE"}) { animal { id } }
			herd: groupCreate(input: {farmID: $f, name: "Herd"}) { group { id } }
			spareGroup: groupCreate(input: {farmID: $f, name: "Spare"}) { group { id } }
		}`)
		for _, k := range []string{"dam", "bull", "spare"} {
			v[k] = dig(t, out, "data."+k+".animal.id")
		}
		v["herd"], v["spareGroup"] = dig(t, out, "data.herd.group.id"), dig(t, out, "data.spareGroup.group.id")
		out = do(t, `mutation($dam: ID!, $bull: ID!, $herd: ID!) {
			animalUpdate(input: {id: $dam, tag: "COW-1", name: "Daisy"}) { animal { name } }
			groupAnimalsSet(input: {id: $herd, animalIDs: [$dam, $bull]}) { group { animalsConnection { totalCount } } }
		}`)
		if dig(t, out, "data.animalUpdate.animal.name") != "Daisy" || dig(t, out, "data.groupAnimalsSet.group.animalsConnection.totalCount") != float64(2) {
			t.Fatalf("animalUpdate, groupAnimalsSet = %v", out)
		}
		out = do(t, `mutation($f: ID!, $dam: ID!, $bull: ID!, $herd: ID!) {
			a: factCreate(input: {farmID: $f, fact: {profile: {animalID: $dam, sex: FEMALE, birthDate: "2021-04-01", breed: "Angus"}}}) { record { id type } }
			b: factCreate(input: {farmID: $f, fact: {profile: {animalID: $bull, sex: MALE, birthDate: "2022-03-10"}}}) { record { id } }
			c: factCreate(input: {farmID: $f, fact: {membership: {animalID: $dam, groupID: $herd, startDate: "2025-04-01"}}}) { record { id } }
			d: factCreate(input: {farmID: $f, fact: {exposure: {sireID: $bull, groupID: $herd, startDate: "2025-06-15", endDate: "2025-08-01"}}}) { record { id } }
			e: factCreate(input: {farmID: $f, fact: {movement: {kind: PURCHASE, animalID: $dam, date: "2024-10-01"}}}) { record { type } }
			g: factCreate(input: {farmID: $f, fact: {castration: {animalID: $bull, date: "2026-09-01"}}}) { record { id } }
			s: birthSettingsUpdate(input: {farmID: $f, version: 1, species: CATTLE, gestationDays: {min: 279, max: 292},
				birthWindows: [{label: "Spring", startDate: "2026-03-01", endDate: "2026-05-31"}]}) { birthSettings { settingsVersion settings { birthWindows { startDate } } } }
			p: followUpProtocolUpdate(input: {farmID: $f, steps: [{name: "Weigh", offsetDays: 1}]}) { followUpProtocol { version } }
		}`)
		if dig(t, out, "data.a.record.type") != "GENETIC" || dig(t, out, "data.e.record.type") != "MOVEMENT" ||
			dig(t, out, "data.s.birthSettings.settings.birthWindows.0.startDate") != "2026-03-01" || dig(t, out, "data.p.followUpProtocol.version") != float64(1) {
			t.Fatalf("facts and settings = %v", out)
		}
		out = do(t, `mutation($f: ID!, $dam: ID!) { birthPreviewCreate(input: {farmID: $f, damID: $dam, birthDate: "2026-04-20"}) {
			birthPreview { id evidence { plannedWindowStatus sire { status animal { tag } } } } } }`)
		if dig(t, out, "data.birthPreviewCreate.birthPreview.evidence.sire.animal.tag") != "BULL-1" ||
			dig(t, out, "data.birthPreviewCreate.birthPreview.evidence.plannedWindowStatus") != "within" {
			t.Fatalf("birthPreviewCreate = %v", out)
		}
		v["p"] = dig(t, out, "data.birthPreviewCreate.birthPreview.id")
		out = do(t, `mutation($f: ID!, $p: ID!) { birthPreviewApprove(input: {farmID: $f, id: $p, requestID: "conv-1", calves: [{tag: "CONV-CALF", sex: "female", status: "alive"}]}) { birthEvent { id tasks { id } } } }`)
		v["task"] = dig(t, out, "data.birthPreviewApprove.birthEvent.tasks.0.id")
		out = do(t, `mutation($f: ID!, $task: ID!) {
			a: taskUpdate(input: {farmID: $f, id: $task, status: TODO, dueOn: "2026-05-01"}) { task { dueOn status } }
			b: taskUpdate(input: {farmID: $f, id: $task, status: DONE}) { task { dueOn status } }
		}`)
		if dig(t, out, "data.a.task.dueOn") != "2026-05-01" || dig(t, out, "data.b.task.dueOn") != "2026-05-01" || dig(t, out, "data.b.task.status") != "DONE" {
			t.Fatalf("taskUpdate = %v (leaving dueOn out keeps it)", out)
		}
		out = do(t, `mutation($f: ID!, $task: ID!) { taskUpdate(input: {farmID: $f, id: $task, status: DONE, dueOn: null}) { task { dueOn } } }`)
		if dig(t, out, "data.taskUpdate.task.dueOn") != nil {
			t.Fatalf("taskUpdate with dueOn null = %v", out)
		}
		out = do(t, `mutation($f: ID!, $dam: ID!) { recordCreate(input: {farmID: $f, name: "Vet visit", type: HEALTH,
			appliedAt: "2026-05-02T10:00:00Z", animalIDs: [$dam]}) { record { id animalsConnection { totalCount } } } }`)
		v["r"] = dig(t, out, "data.recordCreate.record.id")
		out = do(t, `mutation($f: ID!, $r: ID!, $herd: ID!) { recordUpdate(input: {farmID: $f, id: $r, groupIDs: [$herd], description: "All fine",
			items: [{name: "Temperature", metadata: {celsius: 38.6}}]}) { record { description groups { id } items { name } } } }`)
		if dig(t, out, "data.recordUpdate.record.description") != "All fine" || dig(t, out, "data.recordUpdate.record.items.0.name") != "Temperature" {
			t.Fatalf("recordUpdate = %v", out)
		}
		out = do(t, `mutation($f: ID!) { threadCreate(input: {farmID: $f, title: "Calving", isPrivate: true}) { thread { id isPrivate } } }`)
		v["t"] = dig(t, out, "data.threadCreate.thread.id")
		out = do(t, `mutation($t: ID!) { messagePost(input: {threadID: $t, body: "She calved."}) { message { body authorID } } }`)
		if dig(t, out, "data.messagePost.message.authorID") != owner.ID.String() {
			t.Fatalf("messagePost = %v", out)
		}
		out = do(t, `mutation($f: ID!) {
			notificationsMarkRead(input: {farmID: $f}) { markedCount }
			farmPrefs: notificationPreferencesUpdate(input: {farmID: $f, email: false, sms: false, inApp: true}) { preferences { source inApp farmID farm { name } } }
			defaultPrefs: notificationPreferencesUpdate(input: {email: true, sms: false, inApp: true, emailAddress: "kari@example.com"}) { preferences { source emailAddress } }
		}`)
		if dig(t, out, "data.notificationsMarkRead.markedCount") != float64(0) || dig(t, out, "data.farmPrefs.preferences.source") != "FARM" || dig(t, out, "data.farmPrefs.preferences.farm.name") != "Convention Farm" ||
			dig(t, out, "data.defaultPrefs.preferences.source") != "DEFAULT" || dig(t, out, "data.defaultPrefs.preferences.emailAddress") != "kari@example.com" {
			t.Fatalf("notifications = %v", out)
		}
		out = do(t, `mutation($f: ID!, $r: ID!, $spare: ID!, $spareGroup: ID!, $m: ID!) {
			recordDelete(input: {farmID: $f, id: $r}) { deletedRecordID }
			animalDelete(input: {id: $spare}) { deletedAnimalID }
			groupDelete(input: {id: $spareGroup}) { deletedGroupID }
			memberDeactivate(input: {id: $m}) { deactivatedMemberID }
		}`)
		if dig(t, out, "data.recordDelete.deletedRecordID") != v["r"] || dig(t, out, "data.animalDelete.deletedAnimalID") != v["spare"] ||
			dig(t, out, "data.groupDelete.deletedGroupID") != v["spareGroup"] || dig(t, out, "data.memberDeactivate.deactivatedMemberID") != v["m"] {
			t.Fatalf("deletes = %v", out)
		}
		out = do(t, `mutation($f: ID!) { farmDelete(input: {id: $f}) { deletedFarmID } }`)
		if dig(t, out, "data.farmDelete.deletedFarmID") != v["f"] {
			t.Fatalf("farmDelete = %v", out)
		}

		t.Run("Errors", func(t *testing.T) {
			f := app.MustFarm(owner, "Errors Farm").ID.String()
			a := app.MustAnimal(owner, uuidOf(f), "A").ID.String()
			for _, tc := range []struct{ name, query, code string }{
				{"ErrTwoKindsOfFact", `mutation($f: ID!, $a: ID!) { factCreate(input: {farmID: $f, fact: {castration: {animalID: $a, date: "2026-01-01"}, movement: {kind: PURCHASE, animalID: $a, date: "2026-01-01"}}}) { record { id } } }`, "GRAPHQL_VALIDATION_FAILED"},
				{"ErrNoFact", `mutation($f: ID!) { factCreate(input: {farmID: $f, fact: {}}) { record { id } } }`, "GRAPHQL_VALIDATION_FAILED"},
				{"ErrNotADate", `mutation($f: ID!, $a: ID!) { factCreate(input: {farmID: $f, fact: {castration: {animalID: $a, date: "2026-02-30"}}}) { record { id } } }`, "BAD_USER_INPUT"},
				{"ErrDateWithTime", `mutation($f: ID!, $a: ID!) { birthPreviewCreate(input: {farmID: $f, damID: $a, birthDate: "2026-02-01T00:00:00Z"}) { birthPreview { id } } }`, "BAD_USER_INPUT"},
				{"ErrDateNumber", `mutation($f: ID!, $a: ID!) { birthPreviewCreate(input: {farmID: $f, damID: $a, birthDate: 20260201}) { birthPreview { id } } }`, "BAD_USER_INPUT"},
				{"ErrMissingInput", `mutation { farmCreate { farm { id } } }`, "GRAPHQL_VALIDATION_FAILED"},
				{"ErrOtherFarm", `mutation($a: ID!) { animalUpdate(input: {id: $a, tag: "X"}) { animal { id } } }`, "NOT_FOUND"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					token := owner.Token
					if tc.name == "ErrOtherFarm" {
						token = friend.Token
					}
					out := app.Do("POST", "/graphql", token, map[string]any{"query": tc.query, "variables": map[string]any{"f": f, "a": a}}).JSON(t)
					if got := errorCode(out); got != tc.code {
						t.Fatalf("code %q, want %q: %v", got, tc.code, out)
					}
				})
			}
			// Variables escape the validator's @oneOf check; the resolver refuses them too.
			out := app.Do("POST", "/graphql", owner.Token, map[string]any{"query": `mutation($f: ID!, $fact: FactInput!) { factCreate(input: {farmID: $f, fact: $fact}) { record { id } } }`,
				"variables": map[string]any{"f": f, "fact": map[string]any{}}}).JSON(t)
			if code := errorCode(out); code != "BAD_USER_INPUT" && code != "GRAPHQL_VALIDATION_FAILED" {
				t.Fatalf("an empty fact in a variable: %v", out)
			}
		})
	})

	t.Run("Shape", func(t *testing.T) {
		app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
		out := app.GraphQL("", `{ __type(name: "Mutation") { fields(includeDeprecated: true) { name isDeprecated deprecationReason
			args { name type { kind ofType { kind name } } } type { kind ofType { kind name } } } } }`, nil)
		wantNoErrors(t, out)
		current := 0
		for _, f := range dig(t, out, "data.__type.fields").([]any) {
			name := dig(t, f, "name").(string)
			if dig(t, f, "isDeprecated") == true {
				if !strings.HasPrefix(dig(t, f, "deprecationReason").(string), "Use ") {
					t.Errorf("%s: the deprecation must name the replacement: %v", name, f)
				}
				continue
			}
			current++
			args := dig(t, f, "args").([]any)
			if len(args) != 1 || dig(t, args, "0.name") != "input" || dig(t, args, "0.type.ofType.kind") != "INPUT_OBJECT" {
				t.Errorf("%s: want one argument input: SomeInput!, got %v", name, args)
			}
			if dig(t, f, "type.kind") != "NON_NULL" || !strings.HasSuffix(dig(t, f, "type.ofType.name").(string), "Payload") {
				t.Errorf("%s: want a non-null payload type, got %v", name, dig(t, f, "type"))
			}
		}
		// Mutations are added as the graph grows; none may vanish without a deprecation.
		// Main's 39, and recordVoid, recordAmend, recordItemVoid, recordItemAmend (graph/audit.graphqls).
		if current < 43 {
			t.Errorf("%d current mutations, want at least 43", current)
		}
	})
}

func uuidOf(s string) uuid.UUID { return uuid.MustParse(s) }
