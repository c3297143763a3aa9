// Package cts is the registry adapter for GB's Cattle Tracing System web services (CTWS),
// run by BCMS for England and Wales. It reports movements on and off a holding and deaths,
// and reads the cattle CTS has on a holding.
//
// The message shapes are those the MIT-licensed client arachsys/cts-tool (file cts, commit
// 2450ef8) exchanges with the service: each request is an XML document in a namespace of
// its own (RegMovs for movements and deaths, GetResults for their answers, GetHolding for
// the cattle on a holding) carrying the keeper's CTWS credentials, sent base64-encoded in
// the data element of a SOAP 1.1 TransferDataHex call to DEFRA's Data Transfer Service,
// which also carries the software's own DDTS credentials (the password as an MD5 hex digest),
// the service name DEFRA-CTWS and the request's type. Writes are asynchronous: RegMovs
// answers a receipt number, and GetResults with that number answers the SystemException
// CTWS806 until the validation results are ready, then an Accept or a Reject (with its
// Causes) per movement row. docs/registry.md describes what is and is not known of it.
package cts

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/herdbook/herdbook/eid"
	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/notice"
	"github.com/herdbook/herdbook/registry/scheme"
)

// DefaultURL is DEFRA's Data Transfer Service endpoint that CTWS requests go through.
const DefaultURL = "https://webservice.secure.ddts.defra.gov.uk/DefraDataTransferPublicNWSE.asmx"

// The namespaces of the SOAP call and of the CTWS documents.
const (
	NSEnvelope        = "http://schemas.xmlsoap.org/soap/envelope/"
	NSDefra           = "http://www.defra.gov.uk"
	NSRegMovs         = "http://defra.bcms.ctws/register_movements_request"
	NSReceipt         = "http://defra.bcms.ctws/asynchronous_receipt"
	NSGetResults      = "http://defra.bcms.ctws/get_asynchronous_results"
	NSRegMovsResults  = "http://defra.bcms.ctws/register_movements_request_results"
	NSHolding         = "http://defra.bcms.ctws/holding_request"
	NSHoldingResults  = "http://defra.bcms.ctws/holding_request_results"
	SOAPAction        = "http://www.defra.gov.uk/TransferDataHex"
	ServiceName       = "DEFRA-CTWS"
	TypeRegMovs       = "Register_Movements_Asynchronous-V1-0"
	TypeResults       = "Get_Register_Movements_Validation_Results-V1-0"
	TypeHolding       = "Get_Cattle_On_Holding-V1-0"
	CodeNotReady      = "CTWS806"
	schemaVersion     = "1.0"
	defaultProgram    = "Herdbook"
	defaultProgramVer = "1.0"
)

// moveTypes maps the notice kinds CTWS takes to RegMovs' MType.
var moveTypes = map[notice.Kind]string{notice.KindMoveOn: "on", notice.KindMoveOff: "off", notice.KindDeath: "death"}

// Client talks to CTWS for one piece of software (its DDTS credentials); the keeper's
// credentials and holding come with each call.
type Client struct {
	// URL is the service endpoint (DefaultURL; a test registry's in tests).
	URL string
	// SoftwareUser and SoftwarePassword are the software's DDTS credentials, issued once
	// it passed BCMS's test.
	SoftwareUser     string
	SoftwarePassword string
	// ProgramName and ProgramVersion name the software in each request.
	ProgramName    string
	ProgramVersion string
	// HTTP is the client requests go through (http.DefaultClient when nil); Now the clock
	// of RequestTimeStamp (time.Now when nil).
	HTTP *http.Client
	Now  func() time.Time
}

var _ registry.Adapter = (*Client)(nil)

// Name is the channel submissions through CTWS are stored under.
func (c *Client) Name() string { return "gb_cts" }

// Supports reports whether CTWS's RegMovs takes the kind: movements on and off, deaths.
// Births (passport applications) and tag replacements go another way.
func (c *Client) Supports(k notice.Kind) bool { _, ok := moveTypes[k]; return ok }

// header is the attributes and authentication every CTWS request starts with.
type header struct {
	SchemaVersion    string `xml:"SchemaVersion,attr"`
	ProgramName      string `xml:"ProgramName,attr"`
	ProgramVersion   string `xml:"ProgramVersion,attr"`
	RequestTimeStamp string `xml:"RequestTimeStamp,attr"`
	User             struct {
		Usr string `xml:"Usr,attr"`
		Pwd string `xml:"Pwd,attr"`
	} `xml:"Authentication>CTS_OL_User"`
}

func (c *Client) header(h registry.Holding) header {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	hd := header{SchemaVersion: schemaVersion, ProgramName: c.ProgramName, ProgramVersion: c.ProgramVersion,
		RequestTimeStamp: now().UTC().Format(time.RFC3339)}
	if hd.ProgramName == "" {
		hd.ProgramName, hd.ProgramVersion = defaultProgram, defaultProgramVer
	}
	hd.User.Usr, hd.User.Pwd = h.Username, h.Password
	return hd
}

type regMovs struct {
	XMLName xml.Name `xml:"http://defra.bcms.ctws/register_movements_request RegMovs"`
	header
	Moves struct {
		TxnID string `xml:"TxnId,attr"`
		Mov   []mov  `xml:"Mov"`
	} `xml:"Moves"`
}

type mov struct {
	Loc    string `xml:"Loc,attr"`
	SLoc   string `xml:"SLoc,attr,omitempty"`
	MType  string `xml:"MType,attr"`
	MDate  string `xml:"MDate,attr"`
	RowNum int    `xml:"RowNum,attr"`
	Etg    string `xml:"Etg,attr"`
}

type getResults struct {
	XMLName xml.Name `xml:"http://defra.bcms.ctws/get_asynchronous_results GetResults"`
	header
	Receipt struct {
		Num string `xml:"Num,attr"`
	} `xml:"Receipt"`
}

type getHolding struct {
	XMLName xml.Name `xml:"http://defra.bcms.ctws/holding_request GetHolding"`
	header
	Holding struct {
		Loc  string `xml:"Loc,attr"`
		SLoc string `xml:"SLoc,attr,omitempty"`
	} `xml:"Holding"`
}

var cphSite = regexp.MustCompile(`^([0-9]{2}/[0-9]{3}/[0-9]{4})(?:-([0-9]{2}))?$`)

// location splits a holding into CTWS's Loc and SLoc: a CPH, and the 2-digit sub-location
// some holdings report under (CC/PPP/HHHH-NN, as cts-tool takes it).
func location(h registry.Holding) (loc, site string, err error) {
	if h.Scheme != scheme.GBCPH {
		return "", "", &registry.Error{Message: fmt.Sprintf("CTWS serves GB holdings (%s), not %q", scheme.GBCPH, h.Scheme)}
	}
	m := cphSite.FindStringSubmatch(h.Identifier)
	if m == nil {
		return "", "", &registry.Error{Message: fmt.Sprintf("holding %q is not a CPH as CC/PPP/HHHH or CC/PPP/HHHH-NN", h.Identifier)}
	}
	return m[1], m[2], nil
}

// officialTag returns a tag number as CTWS takes it: the letters and 12 digits of a UK
// number, without spaces, its check digit checked where the scheme has one.
func officialTag(s string) (string, error) {
	t, err := eid.ParseTag(s)
	if err != nil {
		return "", err
	}
	if t.Scheme != eid.SchemeUKCattle && t.Scheme != eid.SchemeUKOther {
		return "", fmt.Errorf("%q is not a UK ear tag number", s)
	}
	return strings.ReplaceAll(t.Value, " ", ""), nil
}

// Submit sends the reports as one RegMovs request, batchID as its TxnId, and returns the
// receipt number. A report of a kind CTWS does not take, a tag that is not a UK number or a
// date that is not YYYY-MM-DD is refused before anything is sent.
func (c *Client) Submit(ctx context.Context, h registry.Holding, batchID string, reports []registry.Report) (string, error) {
	loc, site, err := location(h)
	if err != nil {
		return "", err
	}
	if len(reports) == 0 {
		return "", &registry.Error{Message: "an empty batch"}
	}
	req := regMovs{header: c.header(h)}
	req.Moves.TxnID = batchID
	for i, r := range reports {
		mt, ok := moveTypes[r.Kind]
		if !ok {
			return "", &registry.Error{Message: fmt.Sprintf("report %s: CTWS does not take %s notices", r.Key, r.Kind)}
		}
		tag, err := officialTag(r.Tag)
		if err != nil {
			return "", &registry.Error{Message: fmt.Sprintf("report %s: %v", r.Key, err)}
		}
		if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
			return "", &registry.Error{Message: fmt.Sprintf("report %s: date %q is not YYYY-MM-DD", r.Key, r.Date)}
		}
		req.Moves.Mov = append(req.Moves.Mov, mov{Loc: loc, SLoc: site, MType: mt, MDate: r.Date, RowNum: i + 1, Etg: tag})
	}
	doc, err := c.transfer(ctx, TypeRegMovs, req)
	if err != nil {
		return "", err
	}
	if err := systemException(doc); err != nil {
		return "", err
	}
	rc := doc.find(NSReceipt, "Receipt")
	if rc == nil || rc.attr("Num") == "" {
		return "", &registry.Error{Message: "the answer to RegMovs carries no receipt number", Temporary: true}
	}
	return rc.attr("Num"), nil
}

// Results asks for the validation results of a receipt: registry.ErrNotReady while CTWS
// answers CTWS806, then an answer per Accept or Reject row, matched to the reports by the
// row's RowNum, or by its tag and movement type when it carries no row number.
func (c *Client) Results(ctx context.Context, h registry.Holding, receipt string, reports []registry.Report) ([]registry.Answer, error) {
	if _, _, err := location(h); err != nil {
		return nil, err
	}
	req := getResults{header: c.header(h)}
	req.Receipt.Num = receipt
	doc, err := c.transfer(ctx, TypeResults, req)
	if err != nil {
		return nil, err
	}
	if err := systemException(doc); err != nil {
		return nil, err
	}
	answered := make([]bool, len(reports))
	var out []registry.Answer
	for _, row := range doc.all(NSRegMovsResults, "Accept", "Reject") {
		m := row.find(NSRegMovsResults, "Mov")
		if m == nil {
			continue
		}
		i := match(m, reports, answered)
		if i < 0 {
			continue
		}
		answered[i] = true
		a := registry.Answer{Key: reports[i].Key, Accepted: row.Name.Local == "Accept"}
		for _, cause := range row.all(NSRegMovsResults, "Cause") {
			if d := strings.TrimSpace(cause.attr("Desc")); d != "" {
				a.Causes = append(a.Causes, d)
			}
		}
		if !a.Accepted && len(a.Causes) == 0 {
			a.Causes = []string{"rejected by CTS without a cause"}
		}
		out = append(out, a)
	}
	return out, nil
}

// match finds the report a result row answers.
func match(m *node, reports []registry.Report, answered []bool) int {
	if n, err := strconv.Atoi(m.attr("RowNum")); err == nil && n >= 1 && n <= len(reports) && !answered[n-1] {
		return n - 1
	}
	etg := strings.ReplaceAll(m.attr("Etg"), " ", "")
	for i, r := range reports {
		tag, _ := officialTag(r.Tag)
		mt := m.attr("MType")
		if !answered[i] && tag == etg && (mt == "" || mt == moveTypes[r.Kind]) {
			return i
		}
	}
	return -1
}

// Animal is one of the cattle CTS has on a holding, as GetHolding answers it.
type Animal struct {
	// Tag is the ear tag without spaces; Breed CTS's breed code (LIMX); Sex M or F.
	Tag   string
	Breed string
	Sex   string
	// BirthDate and OnDate (arrival on the holding) are YYYY-MM-DD.
	BirthDate string
	OnDate    string
	// Queried is set for an animal CTS has queried (a record it doubts).
	Queried bool
}

// Holding returns the cattle CTS has on the holding, queried ones included: the registry's
// copy that reconciliation compares with the book.
func (c *Client) Holding(ctx context.Context, h registry.Holding) ([]Animal, error) {
	loc, site, err := location(h)
	if err != nil {
		return nil, err
	}
	req := getHolding{header: c.header(h)}
	req.Holding.Loc, req.Holding.SLoc = loc, site
	doc, err := c.transfer(ctx, TypeHolding, req)
	if err != nil {
		return nil, err
	}
	if err := systemException(doc); err != nil {
		return nil, err
	}
	var out []Animal
	for _, a := range doc.all(NSHoldingResults, "Animal", "QueriedAnimal") {
		out = append(out, Animal{Tag: strings.ReplaceAll(a.attr("Etg"), " ", ""), Breed: strings.ToUpper(a.attr("Brd")),
			Sex: strings.ToUpper(a.attr("Sex")), BirthDate: a.attr("Dob"), OnDate: a.attr("OnDate"), Queried: a.Name.Local == "QueriedAnimal"})
	}
	return out, nil
}

// systemException turns a CTWS SystemException into registry.ErrNotReady (CTWS806) or a
// *registry.Error.
func systemException(doc *node) error {
	ex := doc.findLocal("SystemException")
	if ex == nil {
		return nil
	}
	if ex.attr("ExNum") == CodeNotReady {
		return registry.ErrNotReady
	}
	msg := ex.attr("ExMsg")
	if msg == "" {
		msg = "CTWS answered a SystemException without a message"
	}
	return &registry.Error{Code: ex.attr("ExNum"), Message: msg}
}

// envelope is the SOAP 1.1 call DDTS takes.
type envelope struct {
	XMLName xml.Name `xml:"http://schemas.xmlsoap.org/soap/envelope/ Envelope"`
	Body    struct {
		Transfer transferDataHex `xml:"http://www.defra.gov.uk TransferDataHex"`
	} `xml:"Body"`
}

type transferDataHex struct {
	Username    string `xml:"username"`
	Password    string `xml:"password"`
	ServiceName string `xml:"serviceName"`
	Type        string `xml:"type"`
	Data        string `xml:"data"`
}

// maxAnswer bounds a DDTS answer: a large holding's GetHolding is a few megabytes.
const maxAnswer = 64 << 20

// transfer sends one CTWS request through DDTS and returns the answer's document.
func (c *Client) transfer(ctx context.Context, typ string, req any) (*node, error) {
	inner, err := xml.Marshal(req)
	if err != nil {
		return nil, err
	}
	var env envelope
	sum := md5.Sum([]byte(c.SoftwarePassword))
	env.Body.Transfer = transferDataHex{Username: c.SoftwareUser, Password: hex.EncodeToString(sum[:]), ServiceName: ServiceName,
		Type: typ, Data: base64.StdEncoding.EncodeToString(append([]byte(xml.Header), inner...))}
	body, err := xml.Marshal(env)
	if err != nil {
		return nil, err
	}
	url := c.URL
	if url == "" {
		url = DefaultURL
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(append([]byte(xml.Header), body...)))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "text/xml; charset=utf-8")
	hr.Header.Set("SOAPAction", SOAPAction)
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(hr)
	if err != nil {
		var op *net.OpError
		return nil, &registry.Error{Message: "CTWS unreachable: " + err.Error(), Temporary: true, NotTaken: errors.As(err, &op) && op.Op == "dial"}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return nil, &registry.Error{Message: "reading CTWS's answer: " + err.Error(), Temporary: true}
	}
	outer, perr := parse(raw)
	if res.StatusCode != http.StatusOK {
		// SOAP 1.1 answers a fault with 500: the sender's fault (credentials, a request
		// DDTS cannot read) is not worth retrying; anything else from the server may pass.
		e := &registry.Error{Message: fmt.Sprintf("CTWS answered HTTP %d", res.StatusCode), Temporary: res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests,
			NotTaken: res.StatusCode == http.StatusServiceUnavailable || res.StatusCode == http.StatusTooManyRequests}
		if perr == nil {
			if f := outer.find(NSEnvelope, "Fault"); f != nil {
				code := strings.TrimSpace(f.childText("faultcode"))
				e.Code, e.Message = code, strings.TrimSpace(f.childText("faultstring"))
				if strings.HasSuffix(code, "Client") {
					e.Temporary = false
				}
			}
		}
		return nil, e
	}
	if perr != nil {
		return nil, &registry.Error{Message: "CTWS answered something that is not XML: " + perr.Error(), Temporary: true}
	}
	result := outer.find(NSDefra, "TransferDataHexResult")
	if result == nil {
		return nil, &registry.Error{Message: "CTWS's answer has no TransferDataHexResult", Temporary: true}
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(result.Text))
	if err != nil {
		return nil, &registry.Error{Message: "CTWS's answer is not base64: " + err.Error(), Temporary: true}
	}
	doc, err := parse(data)
	if err != nil {
		return nil, &registry.Error{Message: "CTWS's answer document is not XML: " + err.Error(), Temporary: true}
	}
	return doc, nil
}

// ParseList reads a herd list in the form cts-tool's "cts list" prints the cattle CTS has on
// a holding: one animal a line, "TAG BREED SEX BORN ARRIVED" separated by spaces, with "?"
// for a value CTS did not give. Blank lines are skipped; a line of another form is an error
// naming its number.
func ParseList(r io.Reader) ([]Animal, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxAnswer))
	if err != nil {
		return nil, err
	}
	var out []Animal
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("line %d: want TAG BREED SEX BORN ARRIVED, found %d fields", i+1, len(f))
		}
		for j := range f {
			if f[j] == "?" {
				f[j] = ""
			}
		}
		for _, d := range f[3:] {
			if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
				return nil, fmt.Errorf("line %d: %q is not a date as YYYY-MM-DD", i+1, d)
			}
		}
		out = append(out, Animal{Tag: f[0], Breed: strings.ToUpper(f[1]), Sex: strings.ToUpper(f[2]), BirthDate: f[3], OnDate: f[4]})
	}
	return out, nil
}

var _ registry.Checker = (*Client)(nil)

// Reported tells from the registry's copy of the holding (GetHolding) which reports it
// already has: a move on when CTS has the animal on the holding since that day, a move off
// or a death when CTS no longer has it there. Whether CTWS recognises a TxnId it has seen is
// not known, so this is how the outbox avoids reporting a batch twice whose answer was lost.
// A report of a kind CTWS does not take is never reported here.
func (c *Client) Reported(ctx context.Context, h registry.Holding, reports []registry.Report) (map[string]bool, error) {
	cattle, err := c.Holding(ctx, h)
	if err != nil {
		return nil, err
	}
	on := make(map[string]Animal, len(cattle))
	for _, a := range cattle {
		on[a.Tag] = a
	}
	out := make(map[string]bool, len(reports))
	for _, r := range reports {
		tag, err := officialTag(r.Tag)
		if err != nil {
			continue
		}
		a, here := on[tag]
		switch r.Kind {
		case notice.KindMoveOn:
			out[r.Key] = here && a.OnDate == r.Date
		case notice.KindMoveOff, notice.KindDeath:
			out[r.Key] = !here
		}
	}
	return out, nil
}

var _ registry.CopyReader = (*Client)(nil)

// Copy returns the registry's copy of the holding (GetHolding) for reconciliation: the
// cattle CTS has on it, queried ones included.
func (c *Client) Copy(ctx context.Context, h registry.Holding) ([]registry.CopyAnimal, error) {
	cattle, err := c.Holding(ctx, h)
	if err != nil {
		return nil, err
	}
	out := make([]registry.CopyAnimal, len(cattle))
	for i, a := range cattle {
		out[i] = registry.CopyAnimal{Tag: a.Tag, Sex: a.Sex, BirthDate: a.BirthDate, OnDate: a.OnDate, Breed: a.Breed}
	}
	return out, nil
}
