package herdbook_test

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"OK", "North Field", ""},
		{"OKUnicode", "Ås gård – 北", ""},
		{"OKReplacementCharacter", "a\uFFFDb", ""},
		{"ErrNUL", "a\x00b", "must not contain control characters such as tabs or line breaks (found U+0000)"},
		{"ErrTab", "a\tb", "found U+0009"},
		{"ErrNewline", "a\nb", "found U+000A"},
		{"ErrDEL", "a\x7fb", "found U+007F"},
		{"ErrC1", "a\u0085b", "found U+0085"},
		{"ErrInvalidUTF8", "ab\xff", "must be valid UTF-8 (byte 2 is not)"},
		{"ErrSurrogateBytes", "a\xed\xa0\x80", "must be valid UTF-8 (byte 1 is not)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := herdbook.CheckText("name", tc.in)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			f := herdbook.ErrorFields(err)
			if herdbook.ErrorCode(err) != herdbook.EINVALID || len(f) != 1 || f[0].Field != "name" || !strings.Contains(f[0].Message, tc.want) {
				t.Fatalf("error %v, want name: …%s", err, tc.want)
			}
		})
	}
}

// textCase calls one service operation with baseline arguments (after the context) that the
// text rule accepts; want is the code a poisoned string must give (EINVALID unless set).
type textCase struct {
	method string
	args   []any
	want   string
}

// textExempt lists the operations that take strings which are not a caller's text, and why.
var textExempt = map[string]string{
	"UploadFiles":              "a streamed form: file names are cleaned of control characters (cleanFileName) and the fields parsed as UUIDs; rest's TestFiles sends them over HTTP",
	"RunFilePurge":             "a logger, not input",
	"LeaseNotifications":       "the worker's own name and channels, not a caller's",
	"RecordDelivery":           "a notification the worker leased and its delivery error, not a caller's",
	"ReleaseNotifications":     "notifications the worker leased, not a caller's",
	"BeginIdempotent":          "the fingerprint is a hash the middleware computes; the key goes through ValidateIdempotencyKey (the text rule, then printable only), tested over HTTP in rest's TestIdempotencyKey",
	"NormalizePhone":           "formats a number and stores nothing; UserByPhone and CreateUser apply the text rule before they call it",
	"LeaseWebhookDeliveries":   "the worker's own lease, not a caller's",
	"RecordWebhookAttempt":     "a delivery the worker leased and the receiver's answer, not a caller's",
	"ReleaseWebhookDeliveries": "deliveries the worker leased, not a caller's",
	"ImportFarmArchive":        "a JSON archive read from a stream, not strings: the body must be valid UTF-8 and every string in it passes the text rule (prose) before anything is written (decodeArchive, textIn), tested over HTTP in rest's TestFarmArchiveRoundTrip (ControlChar, InvalidUTF8)",
	"ImportFarmArchiveMapped":  "ImportFarmArchive, answering the id map too",
	"ImportAnimals":            "a streamed CSV file, not strings: every cell passes the text rule as it is read (readAnimalCSV), tested over HTTP in rest's TestImportAnimals (ControlChar)",
	"ImportWeighings":          "a streamed weigh-scale session file, not strings: its visual ids and column names pass the text rule as it is read, its options are closed sets (unit, date_order) and a date, tested over HTTP in rest's TestImportWeighings (ControlChar, InvalidUTF8)",
	"ImportBreeding":           "a streamed CSV file, not strings: every cell passes the text rule as it is read, tested over HTTP in rest's TestBreedingCSV (ControlChar)",
	"WebhookByURL":             "the operator's command line (admin webhook test) looks up an endpoint by the URL it was given; nothing is stored",
	"Inbreeding":               "an animal the graph loaded (its stored tag and name), not a caller's text; nothing is stored",
	"PedigreeOf":               "an animal the graph loaded (its stored tag and name) and a depth, not a caller's text; nothing is stored",
	"AnimalGroups":             "reads the groups of an animal the graph loaded; nothing is stored",
	"GroupAnimals":             "reads the animals of a group the graph loaded; nothing is stored",
	"AnimalTimeline":           "its only strings are the aliases of the graph's own selection (RecordEdges), which name the edges to load; nothing is stored",
}

// TestTextRuleCoversEveryInput calls every service operation that takes text once per string
// inside its arguments (struct fields, pointers, lists, map keys and values, cursors, where
// filters), with that one string spoilt by a NUL and by invalid UTF-8, and wants the
// operation to refuse it: a new input field, or a new operation, that skips the text rule
// fails here. Operations are found by reflection, so one that is missing from the table
// fails too.
func TestTextRuleCoversEveryInput(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	owner, other := app.MustUser(), app.MustUser()
	ctx := app.Ctx(owner)
	svc := app.Service
	f := app.MustFarm(owner, "Text Farm")
	animal := app.MustAnimal(owner, f.ID, "A-1")
	th, err := svc.CreateThread(ctx, f.ID, "Thread", false)
	if err != nil {
		t.Fatal(err)
	}
	member, err := svc.AdminPutMember(context.Background(), f.ID, other.ID, herdbook.RoleReader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	group := app.MustGroup(owner, f.ID, "Text Group")
	rec, err := svc.CreateRecord(ctx, f.ID, herdbook.RecordInput{AnimalIDs: []uuid.UUID{animal.ID}, Name: "r", Type: "OTHER", AppliedAt: &now})
	if err != nil {
		t.Fatal(err)
	}
	// The feeds' baselines need cursors the lists really gave.
	feedCursor := func(_ any, _ int, c string, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	farmCursor := feedCursor(svc.FarmFeed(ctx, herdbook.FeedPage{}))
	recordCursor := feedCursor(svc.RecordFeed(ctx, f.ID, herdbook.FeedPage{}))
	animalCursor := feedCursor(svc.AnimalFeed(ctx, f.ID, herdbook.FeedPage{}))
	taskCursor := feedCursor(svc.FarmTaskFeed(ctx, f.ID, herdbook.FarmTaskQuery{}, nil))
	window := herdbook.Window{After: &herdbook.Cursor{ID: uuid.New(), Value: "cursor"}, First: ptr(10)}
	item := func() []herdbook.RecordItemInput {
		return []herdbook.RecordItemInput{{Name: ptr("item"), Description: ptr("line one\nline two"),
			Metadata: map[string]any{"note": "n", "dose": 2.5, "nested": map[string]any{"list": []any{"x", map[string]any{"k": "v"}}}}}}
	}
	med, err := svc.CreateMedicine(ctx, f.ID, herdbook.MedicineInput{Name: "Stocked",
		WithdrawalMeatDays: herdbook.LabelPeriod(28), WithdrawalMilkHours: herdbook.LabelPeriod(96)})
	if err != nil {
		t.Fatal(err)
	}
	// The holding cases need a holding of their own: CreateHolding puts f on one.
	hf := app.MustFarm(owner, "Holding Farm")
	holdingIn := func() herdbook.HoldingInput {
		return herdbook.HoldingInput{Scheme: ptr("uk.cph"), Identifier: ptr("34/123/1234"), Name: ptr("Home"), HerdMark: ptr("123456"),
			KeeperName: ptr("Kari"), KeeperReference: ptr("K-1"), Address: ptr("1 Lane"), Postcode: ptr("AB1 2CD"),
			RuleSet: ptr("gb_cts"), HerdType: ptr("beef"), TimeZone: ptr("Europe/London")}
	}
	hv, err := svc.CreateHolding(ctx, hf.ID, holdingIn())
	if err != nil {
		t.Fatal(err)
	}
	auditFilter := herdbook.AuditFilter{AnimalID: animal.ID.String(), RecordID: rec.ID.String(), UserID: owner.ID.String(),
		From: "2026-01-01", To: "2026-12-31T00:00:00Z"}
	cases := []textCase{
		{method: "CreateFarm", args: []any{herdbook.FarmInput{Name: "Farm", Species: "OTHER", SpeciesOther: ptr("Alpaca")}}},
		{method: "UpdateFarmSettings", args: []any{f.ID, herdbook.FarmSettingsPatch{
			TimeZone:        herdbook.Optional[string]{Set: true, Value: ptr("Europe/London")},
			WithdrawalRules: herdbook.Optional[string]{Set: true, Value: ptr(herdbook.WithdrawalRulesGBVMR2013)}}}},
		{method: "UpdateFarm", args: []any{f.ID, herdbook.FarmPatch{Name: ptr("Farm"), Species: ptr("OTHER"),
			SpeciesOther: herdbook.Optional[string]{Set: true, Value: ptr("Alpaca")}}}},
		{method: "CreateAnimal", args: []any{f.ID, herdbook.AnimalInput{Tag: "T-2", Name: ptr("Dagros"), Sex: ptr("female"),
			BirthDate: ptr("2024-01-01"), Breed: ptr("Angus"), EID: ptr("982000000000001")}}},
		{method: "UpdateAnimal", args: []any{animal.ID, herdbook.AnimalInput{Tag: "T-3", Name: ptr("Dagros"), Sex: ptr("female"),
			BirthDate: ptr("2024-01-01"), Breed: ptr("Angus"), EID: ptr("982000000000002")}}},
		{method: "UpdateFarmAnimal", args: []any{f.ID, animal.ID, herdbook.AnimalInput{Tag: "T-4", Name: ptr("Dagros"), Sex: ptr("female"),
			BirthDate: ptr("2024-01-01"), Breed: ptr("Angus"), EID: ptr("982000000000003")}}},
		{method: "Animals", args: []any{f.ID, herdbook.AnimalFilter{AsOf: "2026-01-01", Status: "on_farm", Q: "T-"}}},
		{method: "AnimalProfile", args: []any{animal.ID, "2026-01-01"}},
		{method: "FarmAnimal", args: []any{f.ID, animal.ID, "2026-01-01"}},
		{method: "AnimalPassport", args: []any{f.ID, animal.ID, "2026-01-01"}},
		{method: "AnimalsByIdentifier", args: []any{f.ID, "982000000000001"}},
		{method: "GroupMembers", args: []any{f.ID, group.ID, "2026-01-01"}},
		{method: "ExportRecords", args: []any{f.ID, "2026-01-01", "2026-12-31"}},
		{method: "ExportAnimals", args: []any{f.ID, "2026-01-01"}},
		{method: "ExportBreeding", args: []any{f.ID, "2026-01-01", "2026-12-31"}},
		{method: "WriteAnimalFacts", args: []any{f.ID, []evidence.Fact{{Kind: evidence.KindSale, AnimalID: animal.ID.String(),
			Date: "2025-01-01", Buyer: "Smith"}}}},
		{method: "WriteAnimalFactsWith", args: []any{f.ID, []evidence.Fact{{Kind: evidence.KindSale, AnimalID: animal.ID.String(),
			Date: "2025-01-01", Buyer: "Smith"}}, herdbook.FactOptions{AcknowledgeWithdrawal: true}}},
		{method: "Profiles", args: []any{f.ID, []uuid.UUID{animal.ID}, "2026-01-01"}},
		{method: "CreateGroup", args: []any{f.ID, herdbook.GroupInput{Name: "Heifers", StartDate: "2026-01-01"}}},
		{method: "CreateRecord", args: []any{f.ID, herdbook.RecordInput{AnimalIDs: []uuid.UUID{animal.ID}, Name: "Check",
			Type: "HEALTH", AppliedAt: &now, Description: ptr("fine"), Items: item()}}},
		{method: "UpdateRecord", args: []any{f.ID, uuid.New(), herdbook.RecordPatch{Name: ptr("Check"), Type: ptr("FEED"),
			Description: herdbook.Optional[string]{Set: true, Value: ptr("d")}, Items: item()}}},
		{method: "RecordFact", args: []any{f.ID, evidence.Fact{Kind: evidence.KindProfile, AnimalID: animal.ID.String(), Sex: "female",
			BirthDate: "2024-01-01", Breed: "Angus"}}},
		{method: "RecordFactWith", args: []any{f.ID, evidence.Fact{Kind: evidence.KindProfile, AnimalID: animal.ID.String(), Sex: "female",
			BirthDate: "2024-01-01", Breed: "Angus"}, herdbook.FactOptions{AcknowledgeWithdrawal: true}}},
		{method: "CreateMedicine", args: []any{f.ID, herdbook.MedicineInput{Name: "Penicillin", ActiveSubstance: ptr("benzylpenicillin"),
			WithdrawalMeatDays: herdbook.LabelPeriod(28), WithdrawalMilkHours: herdbook.LabelPeriod(96),
			SpeciesWithdrawals: []herdbook.SpeciesWithdrawal{{Species: "SHEEP", WithdrawalMeatDays: ptr(35), WithdrawalMilkHours: ptr(120)}}}}},
		{method: "UpdateMedicine", args: []any{f.ID, uuid.New(), herdbook.MedicinePatch{Name: ptr("Penicillin"),
			ActiveSubstance:    herdbook.Optional[string]{Set: true, Value: ptr("benzylpenicillin")},
			SpeciesWithdrawals: &[]herdbook.SpeciesWithdrawal{{Species: "GOAT", WithdrawalMeatDays: ptr(35), WithdrawalMilkHours: ptr(120)}}}}},
		{method: "Withdrawals", args: []any{f.ID, "2026-03-01", herdbook.Page{}}},
		{method: "Due", args: []any{f.ID, "2026-03-01", herdbook.Page{}}},
		{method: "DueCSV", args: []any{f.ID, "2026-03-01"}},
		{method: "AnimalWithdrawalAsOf", args: []any{f.ID, animal.ID, "2026-03-01"}},
		{method: "WithdrawalOf", args: []any{f.ID, animal.ID, "2026-03-01"}},
		{method: "AdminMedicineBook", args: []any{f.ID, "2026-01-01", "2026-03-01", func([]string) error { return nil }}},
		{method: "MedicineBook", args: []any{f.ID, "2026-01-01", "2026-03-01", func([]string) error { return nil }}},
		{method: "CreateMedicinePurchase", args: []any{f.ID, herdbook.MedicinePurchaseInput{MedicineID: ptr(med.ID), Batch: ptr("B-1"),
			ExpiryDate: ptr("2027-01-31"), Quantity: ptr(100.0), QuantityUnit: ptr("ml"), SupplierName: ptr("Vet Supplies"),
			SupplierAddress: ptr("1 High Street"), PurchasedOn: ptr("2026-01-15"), DocumentReference: ptr("INV-1")}}},
		{method: "MedicineStock", args: []any{f.ID, "2026-03-01"}},
		{method: "CreateOutsideAnimal", args: []any{f.ID, herdbook.OutsideAnimalInput{Name: ptr("Sire"), Sex: ptr("male"), Breed: ptr("Angus"),
			Registry: ptr("AAA"), RegistrationNumber: ptr("19000001"), Batch: ptr("lot 44"), BirthDate: ptr("2019-03-01")}}},
		{method: "UpdateOutsideAnimal", args: []any{f.ID, uuid.New(), herdbook.OutsideAnimalInput{Name: ptr("Sire"), Sex: ptr("male"), Breed: ptr("Angus"),
			Registry: ptr("AAA"), RegistrationNumber: ptr("19000001"), Batch: ptr("lot 44"), BirthDate: ptr("2019-03-01")}}},
		{method: "InspectorBook", args: []any{f.ID, "2026-01-01", "2026-03-01", []string{herdbook.BookAcquisitions, herdbook.BookAdministration},
			herdbook.BookWriter{Begin: func(herdbook.BookInfo) error { return nil },
				Section: func(string, []string) error { return nil }, Row: func([]string) error { return nil }}}},
		{method: "PutBirthSettings", args: []any{f.ID, evidence.Settings{Version: 1, Species: "OTHER", // UpdateFarm made it OTHER
			BirthWindows: []evidence.Window{{Label: "Spring", StartDate: "2026-03-01", EndDate: "2026-05-31"}}}}},
		{method: "BirthEvidence", args: []any{f.ID, animal.ID.String(), "2026-04-01"}},
		{method: "CreateBirthPreview", args: []any{f.ID, animal.ID.String(), "2026-04-01"}},
		{method: "PutFollowUpProtocol", args: []any{f.ID, []schematype.ProtocolStep{{Name: "Weigh", OffsetDays: 1}}}},
		{method: "RecordCalving", args: []any{f.ID, herdbook.CalvingInput{DamID: animal.ID.String(), Date: "2024-12-01",
			Calves: []herdbook.CalfInput{{Tag: "K-1", EID: "982000000000777", Sex: "male", Status: "alive"}}}}},
		{method: "Calvings", args: []any{f.ID, herdbook.CalvingQuery{From: "2026-01-01", To: "2026-12-31"}}},
		{method: "AnimalWeights", args: []any{f.ID, animal.ID, "", ""}},
		{method: "Report", args: []any{f.ID, "calving", herdbook.ReportQuery{From: "2026-01-01", To: "2026-12-31", ExposureFrom: "2025-05-01", ExposureTo: "2025-08-31"}}},
		{method: "ReportTable", args: []any{f.ID, "scans", herdbook.ReportQuery{From: "2026-01-01", To: "2026-12-31"}}},
		{method: "ApproveBirthPreview", args: []any{f.ID, uuid.New(), herdbook.BirthApproval{RequestID: "request-1"}}},
		{method: "UpdateFarmTask", args: []any{f.ID, uuid.New(), herdbook.FarmTaskPatch{Status: "DONE",
			DueDate: herdbook.Optional[string]{Set: true, Value: ptr("2026-05-01")}, RequestID: "request-2"}}},
		{method: "FarmTasks", args: []any{f.ID, herdbook.FarmTaskQuery{Status: ptr("TODO")}}},
		{method: "Notifications", args: []any{f.ID, herdbook.NotificationQuery{Status: ptr("SENT")}}},
		{method: "SetNotificationPreferences", args: []any{&f.ID, herdbook.NotificationPreferencesInput{InApp: true,
			EmailAddress: herdbook.Optional[string]{Set: true, Value: ptr("kari@example.com")}}}},
		{method: "SetUserEmail", args: []any{owner.ID, "kari@example.com"}},
		{method: "AddMember", args: []any{f.ID, other.Phone, herdbook.RoleEditor}},
		{method: "AdminPutMember", args: []any{f.ID, other.ID, herdbook.RoleReader}},
		{method: "SetMemberRole", args: []any{member.ID, herdbook.RoleEditor}},
		{method: "CreateThread", args: []any{f.ID, "Calving", false}},
		{method: "PostMessage", args: []any{th.ID, "First calf\non the ground"}},
		{method: "CreateUser", args: []any{herdbook.UserInput{FullName: ptr("Ola"), PhoneNumberLocal: "+47 900 00 001", Password: "a long password"}}},
		{method: "UserByPhone", args: []any{owner.Phone}},
		{method: "CheckPassword", args: []any{owner.Phone, "a long test password"}, want: herdbook.EUNAUTHORIZED},
		{method: "AdminTestNotification", args: []any{owner.ID, &f.ID, "IN_APP", "hello"}},
		{method: "FarmConnection", args: []any{window, (*ent.FarmOrder)(nil),
			&ent.FarmWhereInput{NameContains: ptr("a"), Not: &ent.FarmWhereInput{NameHasPrefix: ptr("b")}, Or: []*ent.FarmWhereInput{{NameIn: []string{"c"}}}}}},
		{method: "AnimalConnection", args: []any{f.ID, window, (*ent.AnimalOrder)(nil), &ent.AnimalWhereInput{TagContains: ptr("a")}}},
		{method: "RegisterAnimalConnection", args: []any{f.ID, window, (*ent.AnimalOrder)(nil), &ent.AnimalWhereInput{TagContains: ptr("a")}, herdbook.AnimalFilter{AsOf: "2026-01-01", Status: "on_farm", Q: "T-"}}},
		{method: "GroupConnection", args: []any{f.ID, window, (*ent.GroupOrder)(nil), &ent.GroupWhereInput{NameEqualFold: ptr("a")}}},
		{method: "RecordConnection", args: []any{f.ID, window, (*ent.RecordOrder)(nil),
			&ent.RecordWhereInput{DescriptionContains: ptr("a"), And: []*ent.RecordWhereInput{{NameIn: []string{"b"}}}}, herdbook.RecordEdges{}}},
		{method: "FarmFeed", args: []any{herdbook.FeedPage{Since: &farmCursor}}},
		{method: "RecordFeed", args: []any{f.ID, herdbook.FeedPage{Since: &recordCursor}}},
		{method: "AnimalFeed", args: []any{f.ID, herdbook.FeedPage{Since: &animalCursor}}},
		{method: "FarmTaskFeed", args: []any{f.ID, herdbook.FarmTaskQuery{}, &taskCursor}},
		{method: "WebhookDeliveries", args: []any{f.ID, uuid.New(), herdbook.WebhookDeliveryQuery{Status: ptr("FAILED")}}},
		{method: "CreateWebhook", args: []any{f.ID, herdbook.WebhookInput{URL: "https://example.com/hook", EventTypes: []string{"record.created"}, Description: ptr("d")}}},
		{method: "UpdateWebhook", args: []any{f.ID, uuid.New(), herdbook.WebhookPatch{URL: ptr("https://example.com/hook"), EventTypes: []string{"record.created"},
			Description: herdbook.Optional[string]{Set: true, Value: ptr("d")}}}},
		{method: "FileConnection", args: []any{f.ID, window, (*ent.FileOrder)(nil)}},
		{method: "ThreadConnection", args: []any{f.ID, window, (*ent.ThreadOrder)(nil)}},
		{method: "MessageConnection", args: []any{th.ID, window, (*ent.MessageOrder)(nil)}},
		{method: "OffspringConnection", args: []any{animal.ID, window}},
		{method: "SetGroupAnimalsOn", args: []any{group.ID, []uuid.UUID{animal.ID}, "2024-06-01"}},
		{method: "SetFarmGroupAnimals", args: []any{f.ID, group.ID, []uuid.UUID{animal.ID}, "2024-06-01"}},
		{method: "GroupAnimalConnection", args: []any{group.ID, window, (*ent.AnimalOrder)(nil), &ent.AnimalWhereInput{TagContains: ptr("a")}}},
		{method: "RecordAnimalConnection", args: []any{rec.ID, window, (*ent.AnimalOrder)(nil), &ent.AnimalWhereInput{TagContains: ptr("a")}}},
		{method: "FarmTaskConnection", args: []any{f.ID, window, herdbook.TaskConnectionFilter{}}},
		{method: "NotificationConnection", args: []any{f.ID, window, (*ent.NotificationOrder)(nil),
			herdbook.NotificationFilter{Status: ptr(notification.StatusSENT)}}},
		{method: "VoidRecord", args: []any{f.ID, rec.ID, "Entered twice."}},
		{method: "DeleteRecordWithReason", args: []any{f.ID, rec.ID, "Entered twice."}},
		{method: "AmendRecord", args: []any{f.ID, rec.ID, herdbook.RecordAmendment{Reason: "Wrong name.", RecordPatch: herdbook.RecordPatch{
			Name: ptr("Check"), Type: ptr("FEED"), Description: herdbook.Optional[string]{Set: true, Value: ptr("d")}, Items: item()}, ItemsSet: true}}},
		{method: "VoidRecordItem", args: []any{f.ID, rec.ID, uuid.New(), "Entered twice."}},
		{method: "AmendRecordItem", args: []any{f.ID, rec.ID, uuid.New(), "Wrong dose.", item()[0]}},
		{method: "Audit", args: []any{f.ID, auditFilter}},
		{method: "AuditCSV", args: []any{f.ID, auditFilter, func([]string) error { return nil }}},
		{method: "AuditQuery", args: []any{f.ID, auditFilter}},
		{method: "AuditConnection", args: []any{f.ID, window, auditFilter}},
		{method: "KnownAt", args: []any{"2026-01-01T00:00:00Z"}},
		{method: "CreateHolding", args: []any{f.ID, holdingIn()}},
		{method: "UpdateHolding", args: []any{hv.ID, holdingIn()}},
		{method: "FarmNotices", args: []any{hf.ID, herdbook.NoticeFilter{State: "due", Kind: "birth"}}},
		{method: "HoldingNotices", args: []any{hv.ID, herdbook.NoticeFilter{State: "due", Kind: "birth"}}},
		{method: "ReconcileRegistryCopy", args: []any{hf.ID, herdbook.RegistryCopy{AsOf: "2026-03-20", Animals: []herdbook.RegistryAnimal{{Tag: "UK123456100001",
			Sex: "F", BirthDate: "2020-04-01", OnDate: "2020-04-01", Breed: "LIMX", Dam: "UK123456400004"}}}}},
		{method: "SetHoldingRegistryCredentials", args: []any{hv.ID, herdbook.RegistryCredentialsInput{Username: ptr("123-456-789"), Password: ptr("keeper secret")}}},
		{method: "RecordNoticeSubmission", args: []any{hf.ID, "birth:item:animal", herdbook.NoticeSubmissionInput{State: "rejected",
			Reference: ptr("R-1"), Cause: ptr("tag unknown"), IdempotencyKey: ptr("request-3")}}},
	}

	t.Run("EveryOperationListed", func(t *testing.T) {
		listed := map[string]bool{}
		for _, c := range cases {
			listed[c.method] = true
		}
		st := reflect.TypeOf(svc)
		for i := range st.NumMethod() {
			m := st.Method(i)
			takesText := false
			for j := 1; j < m.Type.NumIn(); j++ {
				takesText = takesText || carriesText(m.Type.In(j), map[reflect.Type]bool{})
			}
			if takesText && !listed[m.Name] && textExempt[m.Name] == "" {
				t.Errorf("Service.%s takes text: add it to TestTextRuleCoversEveryInput (or, with a reason, to textExempt)", m.Name)
			}
		}
	})

	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			method := reflect.ValueOf(svc).MethodByName(c.method)
			args := make([]reflect.Value, len(c.args))
			for i, a := range c.args {
				v := reflect.New(method.Type().In(i + 1)).Elem()
				v.Set(reflect.ValueOf(a))
				args[i] = v
			}
			call := func() error {
				out := method.Call(append([]reflect.Value{reflect.ValueOf(ctx)}, args...))
				err, _ := out[len(out)-1].Interface().(error)
				return err
			}
			if err := call(); herdbook.ErrorCode(err) == herdbook.EINVALID {
				t.Fatalf("the baseline arguments are refused: %v", err)
			}
			var leaves []leaf
			for i, a := range args {
				collectLeaves(&leaves, "arg"+strconv.Itoa(i), a, a.Set)
			}
			if len(leaves) == 0 {
				t.Fatal("no strings in the baseline arguments")
			}
			want := c.want
			if want == "" {
				want = herdbook.EINVALID
			}
			for _, l := range leaves {
				for _, spoil := range []string{"\x00", "\xff"} {
					l.set(spoil)
					err := call()
					l.restore()
					if herdbook.ErrorCode(err) != want {
						t.Errorf("%s spoilt with %q: error %v, want %s", l.path, spoil, err, want)
					} else if want == herdbook.EINVALID && (len(herdbook.ErrorFields(err)) == 0 || herdbook.ErrorFields(err)[0].Field == "") {
						t.Errorf("%s spoilt with %q: %v names no field", l.path, spoil, err)
					}
				}
			}
		})
	}
}

// carriesText reports whether a value of type t can hold a caller's string.
func carriesText(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Interface:
		return t != reflect.TypeFor[context.Context]() && t != reflect.TypeFor[error]()
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return t.Elem().Kind() != reflect.Uint8 && carriesText(t.Elem(), seen)
	case reflect.Map:
		return carriesText(t.Key(), seen) || carriesText(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && carriesText(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// leaf is one string inside a call's arguments: set spoils it by appending a suffix, restore
// puts the original back.
type leaf struct {
	path    string
	set     func(suffix string)
	restore func()
}

// collectLeaves finds every string below v, which lives where put writes (a variable, a
// struct field, a list element, a map entry). Fields the JSON form leaves out (json:"-") are
// not input and are skipped.
func collectLeaves(out *[]leaf, path string, v reflect.Value, put func(reflect.Value)) {
	switch v.Kind() {
	case reflect.String:
		orig := v.String()
		typ := v.Type()
		*out = append(*out, leaf{path: path,
			set:     func(s string) { put(reflect.ValueOf(orig + s).Convert(typ)) },
			restore: func() { put(reflect.ValueOf(orig).Convert(typ)) }})
	case reflect.Interface:
		if !v.IsNil() {
			collectLeaves(out, path, v.Elem(), put)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			collectLeaves(out, path, v.Elem(), v.Elem().Set)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			e := v.Index(i)
			collectLeaves(out, path+"["+strconv.Itoa(i)+"]", e, e.Set)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			k, m := k, v
			val := m.MapIndex(k)
			collectLeaves(out, path+"."+k.String(), val, func(x reflect.Value) { m.SetMapIndex(k, x) })
			var spoilt reflect.Value
			*out = append(*out, leaf{path: path + " key " + k.String(),
				set: func(s string) {
					spoilt = reflect.ValueOf(k.String() + s).Convert(k.Type())
					m.SetMapIndex(k, reflect.Value{})
					m.SetMapIndex(spoilt, val)
				},
				restore: func() {
					m.SetMapIndex(spoilt, reflect.Value{})
					m.SetMapIndex(k, val)
				}})
		}
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			if !sf.IsExported() || sf.Tag.Get("json") == "-" {
				continue
			}
			fv := v.Field(i)
			collectLeaves(out, path+"."+sf.Name, fv, fv.Set)
		}
	}
}
