// Package ctsfake is a test registry speaking GB CTWS's message shapes (docs/registry.md):
// the tests of registry/cts and of the outbox start it as a real HTTP server. It is not a
// mock of Herdbook's adapter interface: it parses the SOAP calls and CTWS documents as
// arachsys/cts-tool (file cts, commit 2450ef8) sends them and keeps its own copy of cattle.
package ctsfake

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/herdbook/herdbook/eid"
	"github.com/herdbook/herdbook/registry/cts"
)

// Registry is a test registry speaking CTWS's message shapes as arachsys/cts-tool exchanges
// them (file cts, commit 2450ef8): a SOAP 1.1 TransferDataHex call to DDTS whose data is a
// base64 CTWS document. It checks what the real service is known to check (the software's
// DDTS credentials with the MD5 password, the service name, the keeper's CTWS credentials,
// the holding), validates each movement against its own copy of the cattle, and answers
// RegMovs with a receipt and GetResults with CTWS806 (not ready) for the first polls, then
// an Accept or a Reject with its Causes per row. The texts of its causes and its codes other
// than CTWS806 are its own: CTS's are not published.
type Registry struct {
	Mu sync.Mutex
	// Software, SoftwarePassword, Keeper and KeeperPassword are the credentials it takes.
	Software, SoftwarePassword, Keeper, KeeperPassword string
	// Holding is the CPH the keeper may report for; Today the registry's date.
	Holding string
	Today   string
	// Cattle is its copy, by tag without spaces.
	Cattle  map[string]*Animal
	batches map[string]*fakeBatch
	// NotReady is how many polls of a receipt answer CTWS806 first.
	NotReady int
	// Fail answers this many calls with HTTP 503 before reading them.
	Fail int
	// Registered counts the movements and deaths it applied, Calls the calls it read.
	Registered, Calls int
	// LastTxn is the TxnId of the last RegMovs; TxnIDs every TxnId it took, in order.
	LastTxn string
	TxnIDs  []string
}

// Batches is how many RegMovs requests it took.
func (f *Registry) Batches() int {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return len(f.batches)
}

// Animal is one of its cattle: Here while on the holding.
type Animal struct {
	Breed, Sex, Dob, OnDate string
	Here, Dead              bool
}

type fakeBatch struct {
	polls int
	rows  []fakeRow
}

type fakeRow struct {
	mov    fakeMov
	causes []string
}

type fakeMov struct {
	Loc    string `xml:"Loc,attr"`
	SLoc   string `xml:"SLoc,attr"`
	MType  string `xml:"MType,attr"`
	MDate  string `xml:"MDate,attr"`
	RowNum string `xml:"RowNum,attr"`
	Etg    string `xml:"Etg,attr"`
}

// New returns a registry for holding 34/123/1234 on 2026-03-20 taking the credentials
// herdbook-test/ddts-secret (software) and 123-456-789/keeper-secret (keeper), answering
// CTWS806 to the first poll of each receipt; change its fields before serving.
func New() *Registry {
	return &Registry{Software: "herdbook-test", SoftwarePassword: "ddts-secret", Keeper: "123-456-789", KeeperPassword: "keeper-secret",
		Holding: "34/123/1234", Today: "2026-03-20", Cattle: map[string]*Animal{}, batches: map[string]*fakeBatch{}, NotReady: 1}
}

// UKTag returns a GB cattle tag number with its check digit (eid.UKCheckDigit).
func UKTag(herd string, animal int) string {
	n := fmt.Sprintf("%05d", animal)
	return "UK" + herd + string(eid.UKCheckDigit(herd, n)) + n
}

type soapEnvelope struct {
	XMLName xml.Name `xml:"http://schemas.xmlsoap.org/soap/envelope/ Envelope"`
	Body    struct {
		Transfer struct {
			Username    string `xml:"http://www.defra.gov.uk username"`
			Password    string `xml:"http://www.defra.gov.uk password"`
			ServiceName string `xml:"http://www.defra.gov.uk serviceName"`
			Type        string `xml:"http://www.defra.gov.uk type"`
			Data        string `xml:"http://www.defra.gov.uk data"`
		} `xml:"http://www.defra.gov.uk TransferDataHex"`
	} `xml:"http://schemas.xmlsoap.org/soap/envelope/ Body"`
}

// ctwsHeader is what every CTWS document starts with; the namespace of its elements is the
// document's own, so they are matched by local name inside a document already matched.
type ctwsHeader struct {
	SchemaVersion    string `xml:"SchemaVersion,attr"`
	ProgramName      string `xml:"ProgramName,attr"`
	ProgramVersion   string `xml:"ProgramVersion,attr"`
	RequestTimeStamp string `xml:"RequestTimeStamp,attr"`
	User             struct {
		Usr string `xml:"Usr,attr"`
		Pwd string `xml:"Pwd,attr"`
	} `xml:"Authentication>CTS_OL_User"`
}

// ServeHTTP answers a TransferDataHex call.
func (f *Registry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if f.Fail > 0 {
		f.Fail--
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	f.Calls++
	if r.Method != http.MethodPost || strings.Trim(r.Header.Get("SOAPAction"), `"`) != cts.SOAPAction ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "text/xml") {
		f.fault(w, "soap:Client", "expected a POST of text/xml with SOAPAction "+cts.SOAPAction)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var env soapEnvelope
	if err := xml.Unmarshal(body, &env); err != nil {
		f.fault(w, "soap:Client", "not a SOAP envelope: "+err.Error())
		return
	}
	tr := env.Body.Transfer
	sum := md5.Sum([]byte(f.SoftwarePassword))
	if tr.Username != f.Software || tr.Password != hex.EncodeToString(sum[:]) {
		f.fault(w, "soap:Client", "DDTS authentication failed")
		return
	}
	if tr.ServiceName != cts.ServiceName {
		f.fault(w, "soap:Client", "unknown service "+tr.ServiceName)
		return
	}
	doc, err := base64.StdEncoding.DecodeString(tr.Data)
	if err != nil || !strings.HasPrefix(string(doc), "<?xml") {
		f.fault(w, "soap:Client", "data is not a base64 XML document")
		return
	}
	switch tr.Type {
	case cts.TypeRegMovs:
		f.answer(w, f.regMovs(doc))
	case cts.TypeResults:
		f.answer(w, f.results(doc))
	case cts.TypeHolding:
		f.answer(w, f.getHolding(doc))
	default:
		f.fault(w, "soap:Client", "unknown type "+tr.Type)
	}
}

// checkHeader checks a document's header and the keeper's credentials; it returns a
// SystemException document in ns when they fail, or "".
func (f *Registry) checkHeader(h ctwsHeader, ns string) string {
	if h.SchemaVersion != "1.0" || h.ProgramName == "" || h.ProgramVersion == "" {
		return exception(ns, "FAKE001", "SchemaVersion, ProgramName and ProgramVersion are required")
	}
	if _, err := time.Parse(time.RFC3339, h.RequestTimeStamp); err != nil {
		return exception(ns, "FAKE002", "RequestTimeStamp is not a timestamp")
	}
	if h.User.Usr != f.Keeper || h.User.Pwd != f.KeeperPassword {
		return exception(ns, "FAKE003", "CTS Web Services user name or password not recognised")
	}
	return ""
}

func exception(ns, code, msg string) string {
	return fmt.Sprintf(`<Results xmlns=%q><SystemException ExNum=%q ExMsg=%q/></Results>`, ns, code, msg)
}

var etg = regexp.MustCompile(`^UK[0-9]{12}$`)

func (f *Registry) regMovs(doc []byte) string {
	var req struct {
		XMLName xml.Name `xml:"http://defra.bcms.ctws/register_movements_request RegMovs"`
		ctwsHeader
		Moves struct {
			TxnID string    `xml:"TxnId,attr"`
			Mov   []fakeMov `xml:"Mov"`
		} `xml:"Moves"`
	}
	if err := xml.Unmarshal(doc, &req); err != nil {
		return exception(cts.NSReceipt, "FAKE004", "not a RegMovs document: "+err.Error())
	}
	if e := f.checkHeader(req.ctwsHeader, cts.NSReceipt); e != "" {
		return e
	}
	if req.Moves.TxnID == "" || len(req.Moves.Mov) == 0 {
		return exception(cts.NSReceipt, "FAKE005", "Moves needs a TxnId and at least one Mov")
	}
	f.LastTxn = req.Moves.TxnID
	f.TxnIDs = append(f.TxnIDs, req.Moves.TxnID)
	b := &fakeBatch{}
	for i, m := range req.Moves.Mov {
		if m.RowNum != strconv.Itoa(i+1) {
			return exception(cts.NSReceipt, "FAKE008", fmt.Sprintf("row %d has RowNum %q", i+1, m.RowNum))
		}
		b.rows = append(b.rows, fakeRow{mov: m, causes: f.apply(m)})
	}
	num := strconv.Itoa(1000 + len(f.batches))
	f.batches[num] = b
	return fmt.Sprintf(`<AsynchronousReceipt xmlns=%q><Receipt Num=%q/></AsynchronousReceipt>`, cts.NSReceipt, num)
}

// apply validates one movement against the fake's cattle and applies it when valid; it
// returns the causes of a reject.
func (f *Registry) apply(m fakeMov) []string {
	var causes []string
	if m.Loc != f.Holding {
		causes = append(causes, "Location not registered to this user")
	}
	if !etg.MatchString(m.Etg) {
		return append(causes, "Invalid ear tag format")
	}
	d, err := time.Parse(time.DateOnly, m.MDate)
	if err != nil {
		return append(causes, "Invalid movement date")
	}
	if m.MDate > f.Today {
		causes = append(causes, "Movement date is in the future")
	}
	a := f.Cattle[m.Etg]
	if a == nil {
		return append(causes, "Animal not found")
	}
	if dob, _ := time.Parse(time.DateOnly, a.Dob); d.Before(dob) {
		causes = append(causes, "Movement date before date of birth")
	}
	switch m.MType {
	case "on":
		if a.Here {
			causes = append(causes, "Animal already on holding")
		}
	case "off", "death":
		if !a.Here || a.Dead {
			causes = append(causes, "Animal not on holding")
		}
	default:
		causes = append(causes, "Invalid movement type")
	}
	if len(causes) > 0 {
		return causes
	}
	f.Registered++
	switch m.MType {
	case "on":
		a.Here, a.OnDate = true, m.MDate
	case "off":
		a.Here = false
	case "death":
		a.Here, a.Dead = false, true
	}
	return nil
}

func (f *Registry) results(doc []byte) string {
	var req struct {
		XMLName xml.Name `xml:"http://defra.bcms.ctws/get_asynchronous_results GetResults"`
		ctwsHeader
		Receipt struct {
			Num string `xml:"Num,attr"`
		} `xml:"Receipt"`
	}
	if err := xml.Unmarshal(doc, &req); err != nil {
		return exception(cts.NSRegMovsResults, "FAKE004", "not a GetResults document: "+err.Error())
	}
	if e := f.checkHeader(req.ctwsHeader, cts.NSRegMovsResults); e != "" {
		return e
	}
	b := f.batches[req.Receipt.Num]
	if b == nil {
		return exception(cts.NSRegMovsResults, "FAKE006", "Receipt number not found")
	}
	if b.polls++; b.polls <= f.NotReady {
		return exception(cts.NSRegMovsResults, cts.CodeNotReady, "Results not yet available")
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<RegMovsResults xmlns=%q><Results>`, cts.NSRegMovsResults)
	for _, row := range b.rows {
		el := "Accept"
		if len(row.causes) > 0 {
			el = "Reject"
		}
		m := row.mov
		fmt.Fprintf(&sb, `<%s><Mov RowNum=%q Etg=%q MType=%q MDate=%q Loc=%q/>`, el, m.RowNum, m.Etg, m.MType, m.MDate, m.Loc)
		for _, c := range row.causes {
			fmt.Fprintf(&sb, `<Cause Desc=%q/>`, c)
		}
		fmt.Fprintf(&sb, `</%s>`, el)
	}
	sb.WriteString(`</Results></RegMovsResults>`)
	return sb.String()
}

func (f *Registry) getHolding(doc []byte) string {
	var req struct {
		XMLName xml.Name `xml:"http://defra.bcms.ctws/holding_request GetHolding"`
		ctwsHeader
		Holding struct {
			Loc string `xml:"Loc,attr"`
		} `xml:"Holding"`
	}
	if err := xml.Unmarshal(doc, &req); err != nil {
		return exception(cts.NSHoldingResults, "FAKE004", "not a GetHolding document: "+err.Error())
	}
	if e := f.checkHeader(req.ctwsHeader, cts.NSHoldingResults); e != "" {
		return e
	}
	if req.Holding.Loc != f.Holding {
		return exception(cts.NSHoldingResults, "FAKE007", "Location not registered to this user")
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<HoldingResults xmlns=%q><Animals>`, cts.NSHoldingResults)
	for tag, a := range f.Cattle {
		if a.Here {
			fmt.Fprintf(&sb, `<Animal Etg=%q Brd=%q Sex=%q Dob=%q OnDate=%q/>`, tag, a.Breed, a.Sex, a.Dob, a.OnDate)
		}
	}
	sb.WriteString(`</Animals></HoldingResults>`)
	return sb.String()
}

// answer wraps a CTWS document as DDTS does: base64 in TransferDataHexResult.
func (f *Registry) answer(w http.ResponseWriter, doc string) {
	data := base64.StdEncoding.EncodeToString([]byte(`<?xml version="1.0" encoding="utf-8"?>` + doc))
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap=%q><soap:Body><TransferDataHexResponse xmlns=%q><TransferDataHexResult>%s</TransferDataHexResult></TransferDataHexResponse></soap:Body></soap:Envelope>`,
		cts.NSEnvelope, cts.NSDefra, data)
}

// fault answers a SOAP 1.1 fault with HTTP 500.
func (f *Registry) fault(w http.ResponseWriter, code, msg string) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap=%q><soap:Body><soap:Fault><faultcode>%s</faultcode><faultstring>%s</faultstring></soap:Fault></soap:Body></soap:Envelope>`,
		cts.NSEnvelope, code, msg)
}
