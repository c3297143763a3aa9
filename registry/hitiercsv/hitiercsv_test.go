package hitiercsv_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/hitiercsv"
	"github.com/herdbook/herdbook/registry/notice"
)

var holding = registry.Holding{Scheme: "de.hitier.bnr", Identifier: "09 000 000 0001"}

// TestExport writes arrivals as HitRestClient's Daten/ZugangDaten.txt holds them, byte for
// byte (BOM, header, LOM;BNR15;ZUGA_DAT rows of HI-Tier's test holding 276090000000001), and a
// departure to an Abgang file; the Storno of the same rows is the same file for action SS.
func TestExport(t *testing.T) {
	t.Parallel()
	reports := []registry.Report{
		{Key: "move_on:1:a", Kind: notice.KindMoveOn, Tag: "DE 09 123 00001", Date: "2015-08-01"},
		{Key: "move_off:2:b", Kind: notice.KindMoveOff, Tag: "DE0912300007", Date: "2014-08-09"},
		{Key: "move_on:3:c", Kind: notice.KindMoveOn, Tag: "de 09 123 00002", Date: "2015-08-01"},
	}
	files, err := hitiercsv.Export(holding, hitiercsv.Insert, reports)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%d files", len(files))
	}
	zugang := "\uFEFFLOM;BNR15;ZUGA_DAT\n276000912300001;276090000000001;01.08.2015\n276000912300002;276090000000001;01.08.2015\n"
	if f := files[0]; f.Name != "Zugang-IS.csv" || f.Action != "IS" || string(f.Content) != zugang || fmt.Sprint(f.Keys) != "[move_on:1:a move_on:3:c]" {
		t.Fatalf("Zugang: %+v\n%q", f, f.Content)
	}
	if f := files[1]; f.Entity != "Abgang" || string(f.Content) != "\uFEFFLOM;BNR15;ABGA_DAT\n276000912300007;276090000000001;09.08.2014\n" {
		t.Fatalf("Abgang: %q", f.Content)
	}
	header, rows, err := hitiercsv.Rows(files[0].Content)
	if err != nil || strings.Join(header, ";") != "LOM;BNR15;ZUGA_DAT" || len(rows) != 2 || rows[1][0] != "276000912300002" {
		t.Fatalf("rows %v %v %v", header, rows, err)
	}
	storno, err := hitiercsv.Export(holding, hitiercsv.Cancel, reports[:1])
	if err != nil || len(storno) != 1 || storno[0].Name != "Zugang-SS.csv" {
		t.Fatalf("storno %+v %v", storno, err)
	}
	if !hitiercsv.Supports(notice.KindMoveOn) || hitiercsv.Supports(notice.KindBirth) || hitiercsv.Supports(notice.KindDeath) {
		t.Fatal("supports")
	}
}

func TestExportErrors(t *testing.T) {
	t.Parallel()
	ok := registry.Report{Key: "move_on:1:a", Kind: notice.KindMoveOn, Tag: "DE 09 123 00001", Date: "2015-08-01"}
	for _, tc := range []struct {
		name    string
		h       registry.Holding
		action  string
		reports []registry.Report
		want    string
	}{
		{"ErrAction", holding, "XS", []registry.Report{ok}, "action"},
		{"ErrGBHolding", registry.Holding{Scheme: "uk.cph", Identifier: "34/123/1234"}, hitiercsv.Insert, []registry.Report{ok}, "German holdings"},
		{"ErrHoldingNumber", registry.Holding{Scheme: "de.hitier.bnr", Identifier: "17 000 000 0001"}, hitiercsv.Insert, []registry.Report{ok}, "holding"},
		{"ErrBirth", holding, hitiercsv.Insert, []registry.Report{{Key: "birth:1:a", Kind: notice.KindBirth, Tag: ok.Tag, Date: ok.Date}}, "does not take birth"},
		{"ErrUKTag", holding, hitiercsv.Insert, []registry.Report{{Key: "move_on:1:a", Kind: notice.KindMoveOn, Tag: "UK 123456 100001", Date: ok.Date}}, "not a German cattle ear tag"},
		{"ErrStateCode", holding, hitiercsv.Insert, []registry.Report{{Key: "move_on:1:a", Kind: notice.KindMoveOn, Tag: "DE 17 123 00001", Date: ok.Date}}, "move_on:1:a"},
		{"ErrDate", holding, hitiercsv.Insert, []registry.Report{{Key: "move_on:1:a", Kind: notice.KindMoveOn, Tag: ok.Tag, Date: "01.08.2015"}}, "YYYY-MM-DD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := hitiercsv.Export(tc.h, tc.action, tc.reports); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want …%s", err, tc.want)
			}
		})
	}
}
