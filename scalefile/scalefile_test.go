package scalefile_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/scalefile"
)

// Sources of the layouts below (docs/csv.md, "Weigh-scale session files"):
//
//   - Digi-Star SW2600EID Operators Manual (D3718), p. 37, "EID CSV data": the two example
//     lines, "A 00000 0 982 000017383201, 890,LB,$,GR,8/27/03,10:15,_" and the same EID at
//     1001 LB without lock-on, mm/dd/yy dates.
//   - Gallagher W810 v2 Weigh Scale user manual (3E2364), pp. 36–38: a session holds weight
//     records with a note and a condition score (standard sessions) or trait columns, its
//     date is stored with it and its file name starts YYYY-MM-DD hh-mm.
//   - FarmIT 3000 help, "Tru-Test – Working With EID Tags" (cited by eid's tests): Tru-Test
//     writes EIDs as ASCII 16, a 0 before the 15 digits (0826052636100657).
//   - Tru-Test / Datamars session exports (XR5000, ID5000, EziWeigh through Data Link) and
//     Gallagher's Animal Data Transfer: EID, VID, weight, date and time columns with the
//     vendor's own (note, drafting, condition score), by name; the column names here are
//     the common spellings of those exports, which no published specification fixes: the
//     reader finds columns by name (scalefile.Columns), not place.

type want struct {
	eid, vid, kg, date, tm string
	extras                 map[string]string
}

func rowsOf(s *scalefile.Session) []want {
	out := make([]want, len(s.Rows))
	for i, r := range s.Rows {
		out[i] = want{r.EID, r.VID, r.KG, r.Date, r.Time, r.Extras}
	}
	return out
}

func TestRead(t *testing.T) {
	for _, c := range []struct {
		name   string
		file   string
		opt    scalefile.Options
		layout string
		delim  rune
		rows   []want
	}{
		{
			// A Tru-Test XR5000 session as Data Link exports it: ASCII 16 EIDs, day-first dates
			// (the 13th settles the order), the vendor's note and draft columns kept.
			name: "TruTestXR5000",
			file: "EID,VID,Weight (kg),Date,Time,Note,Draft\r\n" +
				"0982000001088420,101,452.5,12/03/2026,08:15:02,lame,2\r\n" +
				"0826052636100657,102,398,13/03/2026,08:16:40,,\r\n",
			layout: scalefile.LayoutHeader, delim: ',',
			rows: []want{
				{"982000001088420", "101", "452.5", "2026-03-12", "08:15:02", map[string]string{"Note": "lame", "Draft": "2"}},
				{"826052636100657", "102", "398", "2026-03-13", "08:16:40", nil},
			},
		},
		{
			// A Gallagher session saved from a spreadsheet in a decimal-comma locale: semicolons,
			// 452,5, a condition score column, and no date column: the session's date (from
			// its file name) is given by the caller, as is the unit.
			name: "GallagherSemicolonDecimalComma",
			file: "\uFEFFElectronic ID;Visual ID;Weight;Condition Score;Notes\n" +
				"982 000001088420;A7;452,5;3,5;\n" +
				"964 000000123456;A8;510;4;check feet\n",
			opt:    scalefile.Options{Unit: scalefile.KG, Date: "2004-01-25"},
			layout: scalefile.LayoutHeader, delim: ';',
			rows: []want{
				{"982000001088420", "A7", "452.5", "2004-01-25", "", map[string]string{"Condition Score": "3,5"}},
				{"964000000123456", "A8", "510", "2004-01-25", "", map[string]string{"Condition Score": "4", "Notes": "check feet"}},
			},
		},
		{
			// Pounds from the column's name, converted with the international pound and
			// rounded to 0.01 kg; US month-first dates settled by the 27th.
			name:   "PoundsInHeader",
			file:   "EID,Wt (lbs),Date\n982000017383201,1000,8/27/2003\n982000017383201,1001.5,8/28/2003\n",
			layout: scalefile.LayoutHeader, delim: ',',
			rows: []want{
				{"982000017383201", "", "453.59", "2003-08-27", "", nil},
				{"982000017383201", "", "454.27", "2003-08-28", "", nil},
			},
		},
		{
			// A unit column, one unit a line; an ISO date and time in one column; tabs.
			name:   "UnitColumnTabsDateTime",
			file:   "VID\tWeight\tUnit\tTimestamp\nR-1\t220\tkg\t2026-03-04T08:15:00Z\nR-2\t485\tLB\t2026-03-04 08:16\n",
			layout: scalefile.LayoutHeader, delim: '\t',
			rows: []want{
				{"", "R-1", "220", "2026-03-04", "08:15:00", nil},
				{"", "R-2", "219.99", "2026-03-04", "08:16", nil},
			},
		},
		{
			// A unit in the cell; title lines before the header; blank and delimiter-only
			// lines left out; the caller's date order for dates no day settles.
			name: "TitleLinesAndCellUnits",
			file: "Session: STEERS\nIndicator XR5000 SN 1234\n\nEID,Weight,Date\n" +
				"LA 982 000001088420,452 kg,03/04/2026\n,,\n" +
				"982000001088421,0.5kg,04/03/2026\n",
			opt:    scalefile.Options{DateOrder: scalefile.DayFirst},
			layout: scalefile.LayoutHeader, delim: ',',
			rows: []want{
				{"982000001088420", "", "452", "2026-04-03", "", nil},
				{"982000001088421", "", "0.5", "2026-03-04", "", nil},
			},
		},
		{
			// Two visual numbers: the VID is read, the management tag kept as an extra,
			// whichever comes first.
			name:   "TwoVisualColumns",
			file:   "Management Tag,EID,VID,Weight (kg),Date\nM-7,982000001088420,101,300,2026-03-04\n",
			layout: scalefile.LayoutHeader, delim: ',',
			rows: []want{
				{"982000001088420", "101", "300", "2026-03-04", "", map[string]string{"Management Tag": "M-7"}},
			},
		},
		{
			// Day.month.year and month names read without an order.
			name:   "DotAndMonthNames",
			file:   "EID,Weight,Date\n982000001088420,300,04.03.2026\n982000001088420,301,5-Mar-2026\n982000001088420,302,Mar 6 2026\n",
			opt:    scalefile.Options{Unit: scalefile.KG},
			layout: scalefile.LayoutHeader, delim: ',',
			rows: []want{
				{"982000001088420", "", "300", "2026-03-04", "", nil},
				{"982000001088420", "", "301", "2026-03-05", "", nil},
				{"982000001088420", "", "302", "2026-03-06", "", nil},
			},
		},
		{
			// The Digi-Star SW2600EID manual's two example lines, as they are.
			name: "DigiStarEIDCSV",
			file: "A 00000 0 982 000017383201, 890,LB,$,GR,8/27/03,10:15,_\r\n" +
				"A 00000 0 982 000017383201, 1001,LB, ,GR,8/27/03,10:21,M\r\n",
			layout: scalefile.LayoutDigiStar, delim: ',',
			rows: []want{
				{"982000017383201", "", "403.7", "2003-08-27", "10:15", map[string]string{"lock_on": "$", "gross_net": "GR", "code": "_"}},
				{"982000017383201", "", "454.05", "2003-08-27", "10:21", map[string]string{"gross_net": "GR", "code": "M"}},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := scalefile.Read(strings.NewReader(c.file), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if s.Layout != c.layout || s.Delimiter != c.delim {
				t.Errorf("layout %s %q, want %s %q", s.Layout, s.Delimiter, c.layout, c.delim)
			}
			if got := rowsOf(s); !reflect.DeepEqual(got, c.rows) {
				t.Errorf("rows\n got %+v\nwant %+v", got, c.rows)
			}
		})
	}
}

func TestReadLines(t *testing.T) {
	s, err := scalefile.Read(strings.NewReader("Title\nEID,Weight (kg),Date\n\n982000001088420,400,2026-03-04\n"), scalefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows[0].Line != 4 {
		t.Errorf("line %d, want 4", s.Rows[0].Line)
	}
	if s.Columns["eid"] != "EID" || s.Columns["weight"] != "Weight (kg)" || s.Columns["date"] != "Date" {
		t.Errorf("columns %v", s.Columns)
	}
}

// TestReadProblems refuses what cannot be read exactly, naming the line and column.
func TestReadProblems(t *testing.T) {
	for _, c := range []struct {
		name, file string
		opt        scalefile.Options
		want       []scalefile.Problem // Message is matched as a substring
	}{
		{"Empty", "\n\n", scalefile.Options{}, []scalefile.Problem{{0, "", "is empty"}}},
		{"NoHeader", "a,b,c\n1,2,3\n", scalefile.Options{}, []scalefile.Problem{{1, "", "no header line"}}},
		{"HeaderOnly", "EID,Weight (kg),Date\n", scalefile.Options{}, []scalefile.Problem{{1, "", "no weighings"}}},
		{"NoUnit", "EID,Weight,Date\n982000001088420,400,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "weight", "say the unit"}}},
		{"NoDate", "EID,Weight (kg)\n982000001088420,400\n", scalefile.Options{},
			[]scalefile.Problem{{1, "date", "no date column"}}},
		{"AmbiguousDates", "EID,Weight (kg),Date\n982000001088420,400,03/04/2026\n", scalefile.Options{},
			[]scalefile.Problem{{2, "date", "day first or month first"}}},
		{"ConflictingDates", "EID,Weight (kg),Date\n982000001088420,400,13/04/2026\n982000001088421,400,04/13/2026\n", scalefile.Options{},
			[]scalefile.Problem{{3, "date", "one file has one order"}}},
		{"OrderRefused", "EID,Weight (kg),Date\n982000001088420,400,13/04/2026\n", scalefile.Options{DateOrder: scalefile.MonthFirst},
			[]scalefile.Problem{{2, "date", "cannot be month first"}}},
		{"BadDate", "EID,Weight (kg),Date\n982000001088420,400,2026-02-30\n", scalefile.Options{},
			[]scalefile.Problem{{2, "date", "is not a date"}}},
		{"BadTime", "EID,Weight (kg),Date,Time\n982000001088420,400,2026-03-04,25:00\n", scalefile.Options{},
			[]scalefile.Problem{{2, "time", "not a time of day"}}},
		{"BadEID", "EID,Weight (kg),Date\n982000001088,400,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "eid", "is not an EID"}}},
		{"NoAnimal", "EID,VID,Weight (kg),Date\n,,400,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "eid", "neither an EID nor a VID"}}},
		{"EmptyWeight", "EID,Weight (kg),Date\n982000001088420,,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "weight", "is empty"}}},
		{"NotANumber", "EID,Weight (kg),Date\n982000001088420,heavy,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "weight", "not a weight"}}},
		{"ThousandsSeparator", "EID;Weight (lb);Date\n982000001088420;1,234;2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "weight", "thousands separator"}}},
		{"Zero", "EID,Weight (kg),Date\n982000001088420,0,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "weight", "above 0"}}},
		{"Grams", "EID,Weight (kg),Date\n982000001088420,452000,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "weight", "at most 10000 kg"}}},
		{"UnitConflict", "EID,Weight (kg),Unit,Date\n982000001088420,400,lb,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "unit", "is in kg"}}},
		{"UnknownUnit", "EID,Weight,Unit,Date\n982000001088420,400,st,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "unit", "not a unit of weight"}}},
		{"TooManyCells", "EID,Weight (kg),Date\n982000001088420,400,2026-03-04,x\n", scalefile.Options{},
			[]scalefile.Problem{{2, "", "has 4 cells"}}},
		{"TwoWeightColumns", "EID,Weight (kg),Wt,Date\n982000001088420,400,400,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{1, "Wt", "second weight column"}}},
		{"MaxRows", "EID,Weight (kg),Date\n982000001088420,400,2026-03-04\n982000001088421,400,2026-03-04\n", scalefile.Options{MaxRows: 1},
			[]scalefile.Problem{{3, "", "more than 1 weighings"}}},
		{"BadOptions", "EID,Weight,Date\n", scalefile.Options{Unit: "st", DateOrder: "ymd", Date: "03/04/2026"},
			[]scalefile.Problem{{0, "unit", "kg or lb"}, {0, "date_order", "dmy or mdy"}, {0, "date", "YYYY-MM-DD"}}},
		{"EveryLine", "EID,Weight (kg),Date\n982000001088420,,2026-03-04\nx,400,2026-03-04\n", scalefile.Options{},
			[]scalefile.Problem{{2, "weight", "is empty"}, {3, "eid", "not an EID"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scalefile.Read(strings.NewReader(c.file), c.opt)
			var e *scalefile.Error
			if !errors.As(err, &e) {
				t.Fatalf("err %v, want *scalefile.Error", err)
			}
			if len(e.Problems) != len(c.want) {
				t.Fatalf("problems %+v, want %+v", e.Problems, c.want)
			}
			for i, w := range c.want {
				g := e.Problems[i]
				if g.Line != w.Line || g.Column != w.Column || !strings.Contains(g.Message, w.Message) {
					t.Errorf("problem %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}
