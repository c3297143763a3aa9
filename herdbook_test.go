package herdbook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func ptr[T any](v T) *T { return &v }

// wantFields fails unless err is EINVALID naming exactly the given fields, in order.
func wantFields(t *testing.T, err error, fields ...string) {
	t.Helper()
	if len(fields) == 0 {
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		return
	}
	if herdbook.ErrorCode(err) != herdbook.EINVALID {
		t.Fatalf("error %v, want EINVALID", err)
	}
	var got []string
	for _, f := range herdbook.ErrorFields(err) {
		got = append(got, f.Field)
	}
	if strings.Join(got, ",") != strings.Join(fields, ",") {
		t.Fatalf("fields %v, want %v", got, fields)
	}
}

func TestFarmInputValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		in     herdbook.FarmInput
		fields []string
	}{
		{"OK", herdbook.FarmInput{Name: "Ok", Species: "HORSE"}, nil},
		{"OKUnicodeName", herdbook.FarmInput{Name: "Ås", Species: "ELK"}, nil},
		{"ErrNameTooShort", herdbook.FarmInput{Name: "Å", Species: "ELK"}, []string{"name"}},
		{"ErrNameTooLong", herdbook.FarmInput{Name: strings.Repeat("a", 201), Species: "ELK"}, []string{"name"}},
		{"ErrSpecies", herdbook.FarmInput{Name: "Ok", Species: "PIG"}, []string{"species"}},
		{"ErrSpeciesOther", herdbook.FarmInput{Name: "Ok", Species: "OTHER", SpeciesOther: ptr(strings.Repeat("é", 101))}, []string{"species_other"}},
		{"OKSpeciesOther100", herdbook.FarmInput{Name: "Ok", Species: "OTHER", SpeciesOther: ptr(strings.Repeat("é", 100))}, nil},
		{"ErrAll", herdbook.FarmInput{}, []string{"name", "species"}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantFields(t, tc.in.Validate(), tc.fields...) })
	}
}

func TestRecordInputValidate(t *testing.T) {
	t.Parallel()
	now := time.Now()
	ok := func(f func(*herdbook.RecordInput)) herdbook.RecordInput {
		in := herdbook.RecordInput{AnimalIDs: []uuid.UUID{uuid.New()}, Name: "n", Type: "FEED", AppliedAt: &now}
		if f != nil {
			f(&in)
		}
		return in
	}
	for _, tc := range []struct {
		name   string
		in     herdbook.RecordInput
		fields []string
	}{
		{"OK", ok(nil), nil},
		{"OKGroupsOnly", ok(func(in *herdbook.RecordInput) { in.AnimalIDs, in.GroupIDs = nil, []uuid.UUID{uuid.New()} }), nil},
		{"ErrNoAssociations", ok(func(in *herdbook.RecordInput) { in.AnimalIDs = nil }), []string{"animal_ids"}},
		{"ErrType", ok(func(in *herdbook.RecordInput) { in.Type = "feed" }), []string{"type"}},
		{"ErrAppliedAt", ok(func(in *herdbook.RecordInput) { in.AppliedAt = nil }), []string{"applied_at"}},
		{"ErrDescription", ok(func(in *herdbook.RecordInput) { in.Description = ptr(strings.Repeat("d", 10001)) }), []string{"description"}},
		{"ErrItemName", ok(func(in *herdbook.RecordInput) { in.Items = []herdbook.RecordItemInput{{}, {Name: ptr("")}} }), []string{"record_items[1].name"}},
		{"ErrTooManyItems", ok(func(in *herdbook.RecordInput) { in.Items = make([]herdbook.RecordItemInput, 501) }), []string{"record_items"}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantFields(t, tc.in.Validate(), tc.fields...) })
	}
}

func TestUserInputValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		in     herdbook.UserInput
		fields []string
	}{
		{"OK", herdbook.UserInput{PhoneNumberLocal: "+47 912 34 567", Password: "0123456789"}, nil},
		{"OKNoPassword", herdbook.UserInput{PhoneNumberLocal: "912-34-567"}, nil},
		{"ErrPhone", herdbook.UserInput{PhoneNumberLocal: "phone"}, []string{"phone_number_local"}},
		{"ErrPasswordShort", herdbook.UserInput{PhoneNumberLocal: "91234567", Password: "short"}, []string{"password"}},
		{"ErrPasswordLong", herdbook.UserInput{PhoneNumberLocal: "91234567", Password: strings.Repeat("p", 73)}, []string{"password"}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantFields(t, tc.in.Validate(), tc.fields...) })
	}
}

func TestParsePhone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, region, want string
	}{
		{"OKInternational", " +47 (912) 34-567 ", "NO", "+4791234567"},
		{"OKInternationalPrefix", "004791234567", "NO", "+4791234567"},
		{"OKNational", "91234567", "NO", "+4791234567"},
		{"OKNationalSeparators", "912 34 567", "no", "+4791234567"},
		{"OKOtherRegion", "070-123 45 67", "SE", "+46701234567"},
		{"OKInternationalAnyRegion", "+4791234567", "SE", "+4791234567"},
		{"ErrNationalWithoutRegion", "91234567", "", ""},
		{"ErrWords", "call me", "NO", ""},
		{"ErrTooShort", "+47 12", "NO", ""},
		{"ErrExtension", "+47 912 34 567 ext. 12", "NO", ""},
		{"ErrTooLong", strings.Repeat("9", 65), "NO", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := herdbook.ParsePhone(tc.in, tc.region)
			if got != tc.want || ok != (tc.want != "") {
				t.Fatalf("ParsePhone(%q, %q) = %q, %v; want %q", tc.in, tc.region, got, ok, tc.want)
			}
		})
	}
	if !herdbook.PhoneRegionKnown("no") || herdbook.PhoneRegionKnown("XX") || herdbook.PhoneRegionKnown("") {
		t.Fatal("PhoneRegionKnown")
	}
}

// TestUserByPhoneForms finds one user by every form a person may type the number in, and
// signs in with each: the service layer reads numbers, so the pages and the CLI agree.
func TestUserByPhoneForms(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		svc := herdbook.New(d.Client) // the default region, NO
		u, err := svc.CreateUser(ctx, herdbook.UserInput{PhoneNumberLocal: "912 34 567", Password: "right password"})
		if err != nil {
			t.Fatal(err)
		}
		if u.PhoneNumberLocal != "+4791234567" {
			t.Fatalf("stored as %q", u.PhoneNumberLocal)
		}
		for _, form := range []string{"+4791234567", "+47 912 34 567", "004791234567", "0047 912 34 567", "91234567"} {
			t.Run(form, func(t *testing.T) {
				if got, err := svc.UserByPhone(ctx, form); err != nil || got.ID != u.ID {
					t.Fatalf("UserByPhone: %v", err)
				}
				if _, err := svc.CheckPassword(ctx, form, "right password"); err != nil {
					t.Fatalf("CheckPassword: %v", err)
				}
			})
		}
		t.Run("ErrDuplicateInAnotherForm", func(t *testing.T) {
			_, err := svc.CreateUser(ctx, herdbook.UserInput{PhoneNumberLocal: "004791234567"})
			if herdbook.ErrorCode(err) != herdbook.ECONFLICT {
				t.Fatalf("err = %v", err)
			}
		})
		t.Run("ErrNotAPhoneNumber", func(t *testing.T) {
			_, err := svc.CreateUser(ctx, herdbook.UserInput{PhoneNumberLocal: "+47 12"})
			wantFields(t, err, "phone_number_local")
		})
		t.Run("OtherRegion", func(t *testing.T) {
			se := herdbook.New(d.Client, herdbook.WithPhoneRegion("se"))
			if _, err := se.UserByPhone(ctx, "91234567"); herdbook.ErrorCode(err) != herdbook.ENOTFOUND {
				t.Fatalf("a Norwegian national number found a user in region SE: %v", err)
			}
			if got, err := se.UserByPhone(ctx, "+47 912 34 567"); err != nil || got.ID != u.ID {
				t.Fatalf("international form in region SE: %v", err)
			}
		})
		t.Run("LegacyStoredForm", func(t *testing.T) {
			// Before numbers were parsed, separators were only stripped: "91234568" was stored as typed.
			legacy, err := d.Client.User.Create().SetPhoneNumberLocal("91234568").Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := svc.UserByPhone(ctx, "912 34 568"); err != nil || got.ID != legacy.ID {
				t.Fatalf("legacy row: %v", err)
			}
		})
	})
}

func TestPasswords(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		svc := herdbook.New(d.Client)
		ctx := context.Background()
		if _, err := svc.CreateUser(ctx, herdbook.UserInput{PhoneNumberLocal: "+4711111111", Password: "right password"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.CheckPassword(ctx, "+47 111 11 111", "right password"); err != nil {
			t.Fatalf("right password refused: %v", err)
		}
		for _, tc := range []struct{ name, phone, pw string }{
			{"ErrWrongPassword", "+4711111111", "wrong password"},
			{"ErrUnknownPhone", "+4722222222", "right password"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := svc.CheckPassword(ctx, tc.phone, tc.pw)
				if herdbook.ErrorCode(err) != herdbook.EUNAUTHORIZED || !strings.Contains(herdbook.ErrorMessage(err), "wrong phone number or password") {
					t.Fatalf("err = %v", err)
				}
			})
		}
	})
}

func TestMembership(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, second, reader := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Members")
		svc := app.Service

		if _, err := svc.AddMember(app.Ctx(owner), f.ID, reader.Phone, herdbook.RoleReader); err != nil {
			t.Fatal(err)
		}
		t.Run("ErrReaderCannotAdd", func(t *testing.T) {
			_, err := svc.AddMember(app.Ctx(reader), f.ID, second.Phone, herdbook.RoleOwner)
			if herdbook.ErrorCode(err) != herdbook.EUNAUTHORIZED {
				t.Fatalf("err = %v", err)
			}
		})
		t.Run("ErrUnknownPhone", func(t *testing.T) {
			_, err := svc.AddMember(app.Ctx(owner), f.ID, "+1999", herdbook.RoleReader)
			if herdbook.ErrorCode(err) != herdbook.ENOTFOUND {
				t.Fatalf("err = %v", err)
			}
		})
		t.Run("ErrBadRole", func(t *testing.T) {
			_, err := svc.AddMember(app.Ctx(owner), f.ID, second.Phone, "ADMIN")
			wantFields(t, err, "role")
		})
		members, err := svc.Members(app.Ctx(owner), f.ID)
		if err != nil {
			t.Fatal(err)
		}
		var ownerM uuid.UUID
		for _, m := range members {
			if m.UserID == owner.ID {
				ownerM = m.ID
			}
		}
		t.Run("ErrLastOwnerLeaves", func(t *testing.T) {
			if err := svc.DeactivateMember(app.Ctx(owner), ownerM); herdbook.ErrorCode(err) != herdbook.ECONFLICT {
				t.Fatalf("err = %v", err)
			}
		})
		t.Run("SecondOwnerThenStepDown", func(t *testing.T) {
			if _, err := svc.AddMember(app.Ctx(owner), f.ID, second.Phone, herdbook.RoleOwner); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.SetMemberRole(app.Ctx(owner), ownerM, herdbook.RoleReader); err != nil {
				t.Fatalf("with a second OWNER, stepping down must work: %v", err)
			}
			if _, err := svc.UpdateFarm(app.Ctx(owner), f.ID, herdbook.FarmPatch{Name: ptr("Renamed")}); herdbook.ErrorCode(err) != herdbook.EUNAUTHORIZED {
				t.Fatalf("a READER renamed the farm: %v", err)
			}
		})
		t.Run("Reactivate", func(t *testing.T) {
			var readerM uuid.UUID
			for _, m := range members {
				if m.UserID == reader.ID {
					readerM = m.ID
				}
			}
			if err := svc.DeactivateMember(app.Ctx(second), readerM); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Farm(app.Ctx(reader), f.ID); herdbook.ErrorCode(err) != herdbook.ENOTFOUND {
				t.Fatalf("a deactivated member reads the farm: %v", err)
			}
			if _, err := svc.AddMember(app.Ctx(second), f.ID, reader.Phone, herdbook.RoleEditor); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Farm(app.Ctx(reader), f.ID); err != nil {
				t.Fatalf("a reactivated member cannot read: %v", err)
			}
		})
	})
}

func TestThreads(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Talk")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		svc := app.Service
		if _, err := svc.CreateThread(app.Ctx(editor), f.ID, "Secret", true); herdbook.ErrorCode(err) != herdbook.EINVALID {
			t.Fatalf("a private thread on a farm that forbids them: %v", err)
		}
		if _, err := svc.UpdateFarm(app.Ctx(owner), f.ID, herdbook.FarmPatch{AllowPrivateThreads: ptr(true)}); err != nil {
			t.Fatal(err)
		}
		private, err := svc.CreateThread(app.Ctx(editor), f.ID, "Secret", true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.PostMessage(app.Ctx(editor), private.ID, "hello"); err != nil {
			t.Fatal(err)
		}
		count := func(u herdbooktest.User) int {
			ths, err := svc.Threads(app.Ctx(u), f.ID)
			if err != nil {
				t.Fatal(err)
			}
			return len(ths)
		}
		if count(editor) != 2 || count(owner) != 2 || count(reader) != 1 {
			t.Fatalf("visible threads: editor %d owner %d reader %d", count(editor), count(owner), count(reader))
		}
		if _, err := svc.Messages(app.Ctx(reader), private.ID); herdbook.ErrorCode(err) != herdbook.ENOTFOUND {
			t.Fatalf("a reader read a private thread: %v", err)
		}
		if _, err := svc.PostMessage(app.Ctx(editor), private.ID, "   "); herdbook.ErrorCode(err) != herdbook.EINVALID {
			t.Fatalf("blank message: %v", err)
		}
	})
}

// TestConcurrentWrites runs read-then-write transactions from many goroutines at once: none
// may fail because another holds the database (SQLite's SQLITE_BUSY on a lock upgrade).
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Busy")
		a := app.MustAnimal(u, f.ID, "A")
		now := time.Now()
		var g errgroup.Group
		for i := 0; i < 24; i++ {
			g.Go(func() error {
				_, err := app.Service.CreateRecord(app.Ctx(u), f.ID, herdbook.RecordInput{
					AnimalIDs: []uuid.UUID{a.ID}, Name: "concurrent", Type: "FEED", AppliedAt: &now,
					Items: []herdbook.RecordItemInput{{}},
				})
				return err
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatalf("a concurrent write failed: %v", err)
		}
	})
}
