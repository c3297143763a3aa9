// Package hitiercsv exports statutory notices for Germany's HI-Tier as the semicolon CSV
// files its REST interface takes in bulk, for a keeper or their software to upload where
// Herdbook does not send them itself.
//
// The shape is that of the demo client ralphmlrp/HitRestClient (Daten/ZugangDaten.txt and
// Daten/jobSample.json, commit e151f61): UTF-8 with a byte order mark, LF line ends, a header
// line of HI-Tier column names, then one row per report; each row becomes a JSON object of
// the entity (Zugang for arrivals, Abgang for departures) that the client inserts ("IS") or
// cancels ("SS", Storno) through the REST interface. The columns are LOM (the ear tag as 15
// digits: 276, then 00 and the tag's 10 digits), BNR15 (the holding: 276 and its 12-digit
// Betriebsnummer) and the event's date as DD.MM.YYYY (ZUGA_DAT, ABGA_DAT).
package hitiercsv

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/herdbook/herdbook/eid"
	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/notice"
	"github.com/herdbook/herdbook/registry/scheme"
)

// The actions a file is for, as HitRestClient's tasks name them.
const (
	// Insert reports the rows (Meldung).
	Insert = "IS"
	// Cancel withdraws rows reported earlier (Storno): how a voided arrival or departure
	// is corrected.
	Cancel = "SS"
)

// entities maps the notice kinds exported to HI-Tier's entity and date column.
var entities = map[notice.Kind]struct{ entity, date string }{
	notice.KindMoveOn:  {"Zugang", "ZUGA_DAT"},
	notice.KindMoveOff: {"Abgang", "ABGA_DAT"},
}

// Supports reports whether the export takes a notice kind: arrivals and departures. Births
// need HI-Tier's breed and sex codes, and deaths an entity the reference does not show, so
// they are not exported.
func Supports(k notice.Kind) bool { _, ok := entities[k]; return ok }

// File is one CSV file: the rows of one entity for one action.
type File struct {
	Entity string
	Action string
	// Name is a file name that says both, such as Zugang-IS.csv.
	Name    string
	Content []byte
	// Keys are the notice keys of its rows, in order.
	Keys []string
}

// LOM returns a German cattle ear tag (DE and 10 digits, any spacing) as HI-Tier's 15-digit
// LOM.
func LOM(tag string) (string, error) {
	t, err := eid.ParseTag(tag)
	if err != nil {
		return "", err
	}
	if t.Scheme != eid.SchemeDECattle {
		return "", fmt.Errorf("%q is not a German cattle ear tag (DE and 10 digits)", tag)
	}
	return "27600" + strings.ReplaceAll(strings.TrimPrefix(t.Value, "DE"), " ", ""), nil
}

// Export writes the reports as HI-Tier CSV files for action (Insert or Cancel), one file per
// entity in the order Zugang, Abgang, leaving out entities without rows. A report of a kind
// not exported, a tag that is not German or a date that is not YYYY-MM-DD is an error naming
// the report, and nothing is written.
func Export(h registry.Holding, action string, reports []registry.Report) ([]File, error) {
	if action != Insert && action != Cancel {
		return nil, fmt.Errorf("action %q is neither %s nor %s", action, Insert, Cancel)
	}
	if h.Scheme != scheme.DEBNR {
		return nil, fmt.Errorf("HI-Tier serves German holdings (%s), not %q", scheme.DEBNR, h.Scheme)
	}
	bnr, err := scheme.Canonical(h.Scheme, h.Identifier)
	if err != nil {
		return nil, fmt.Errorf("holding %q: %v", h.Identifier, err)
	}
	bnr15 := "276" + bnr
	files := map[string]*File{}
	for _, r := range reports {
		e, ok := entities[r.Kind]
		if !ok {
			return nil, fmt.Errorf("report %s: HI-Tier's CSV export does not take %s notices", r.Key, r.Kind)
		}
		lom, err := LOM(r.Tag)
		if err != nil {
			return nil, fmt.Errorf("report %s: %v", r.Key, err)
		}
		d, err := time.Parse(time.DateOnly, r.Date)
		if err != nil {
			return nil, fmt.Errorf("report %s: date %q is not YYYY-MM-DD", r.Key, r.Date)
		}
		f := files[e.entity]
		if f == nil {
			f = &File{Entity: e.entity, Action: action, Name: e.entity + "-" + action + ".csv"}
			f.Content = append([]byte("\uFEFF"), "LOM;BNR15;"+e.date+"\n"...)
			files[e.entity] = f
		}
		f.Content = fmt.Appendf(f.Content, "%s;%s;%s\n", lom, bnr15, d.Format("02.01.2006"))
		f.Keys = append(f.Keys, r.Key)
	}
	var out []File
	for _, name := range []string{"Zugang", "Abgang"} {
		if f := files[name]; f != nil {
			out = append(out, *f)
		}
	}
	return out, nil
}

// bom is the byte order mark the files start with.
var bom = []byte("\uFEFF")

// Rows reads a file Export wrote (or one in its shape) back into its header and rows, for
// tests and for a keeper's tools.
func Rows(content []byte) (header []string, rows [][]string, err error) {
	text := strings.TrimRight(string(bytes.TrimPrefix(content, bom)), "\n")
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || lines[0] == "" {
		return nil, nil, fmt.Errorf("no header line")
	}
	header = strings.Split(lines[0], ";")
	for i, l := range lines[1:] {
		cells := strings.Split(l, ";")
		if len(cells) != len(header) {
			return nil, nil, fmt.Errorf("line %d has %d cells, the header %d", i+2, len(cells), len(header))
		}
		rows = append(rows, cells)
	}
	return header, rows, nil
}
