// Package hitier is the registry adapter for Germany's HI-Tier (Herkunftssicherungs- und
// Informationssystem für Tiere) through its REST interface, version 2. It reports cattle
// arrivals (entity ZUGANG), departures (ABGANG), deaths (TOD) and births (GEBURT), and
// withdraws (Storno) any of them when the book voids the fact they reported.
//
// The message shapes come from three public references, read on 2026-11-28:
//   - the demo client ralphmlrp/HitRestClient (commit e151f61): Hit/RestClient.cs for the
//     login (the hit-bnr, hit-mbn, hit-pin and hit-timeout headers, the cache_secret of a
//     session sent back as hit-secret, and DELETE of the entity "session" to log off),
//     Hit/Task.cs for the actions (IS insert, SS storno) and Program.cs for the answer: a
//     JSON object whose Fehlerliste holds one entry per message, each with its Schwere
//     (severity), Plausinummer and Message, and a JSON object with a Message when the call
//     failed as a whole; Daten/ZugangDaten.json, AbgangDaten.json and GeburtResponse.txt
//     for the rows (LOM, BNR15, ZUGA_DAT, ABGA_DAT, GEB_DATR, RASSE, GESCHL_R; dates
//     DD.MM.YYYY);
//   - HI-Tier's apiHelp for REST v2 (www3.hi-tier.de/HitCom3/apiHelp): POST
//     api/hit/{entity} with an explicit aktion inserts, DELETE api/hit/{entity} cancels (SS),
//     and mandant names the holding an authorised agent reports for;
//   - HI-Tier's developer pages: "Melden und Korrigieren" (Entwicklung/Konzept/HITP/
//     feink043.html: an IS of a record already stored identically answers a hint of
//     Schwere 1, one that conflicts an error of Schwere 3; SS closes the open record of the
//     key) and the data dictionary (dd00002.asp, entity ERSTERF: the dam's tag is LOM_MUT,
//     RASSE an integer of up to 3 digits, GESCHL_R a 1-digit code).
//
// HI-Tier answers each write at once: there is no job to poll. Submit therefore sends every
// report as a request of its own (so each answer belongs to one report without guessing),
// keeps the answers, and returns them encoded in the receipt; Results decodes the receipt
// and never answers registry.ErrNotReady. docs/registry.md says what is and is not known.
package hitier

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/hitiercsv"
	"github.com/herdbook/herdbook/registry/notice"
	"github.com/herdbook/herdbook/registry/scheme"
)

// DefaultURL is the base of HI-Tier's production REST interface; TestURL that of its public
// test system, whose test holdings and PINs HI-Tier publishes for software makers.
const (
	DefaultURL = "https://www.hi-tier.de/HitCom3/api/hit"
	TestURL    = "https://www1.hi-tier.de/HitTest3/api/hit"
)

// The HTTP headers that carry the login (HitRestClient, Hit/RestClient.cs).
const (
	HeaderBNR     = "hit-bnr"
	HeaderMBN     = "hit-mbn"
	HeaderPIN     = "hit-pin"
	HeaderSecret  = "hit-secret"
	HeaderTimeout = "hit-timeout"
)

// The HIT actions the adapter uses.
const (
	// ActionInsert reports a record (HIT-Protokoll IS).
	ActionInsert = "IS"
	// ActionStorno withdraws the open record of a key (SS).
	ActionStorno = "SS"
)

// SessionEntity is the path under which a session is ended.
const SessionEntity = "session"

// RejectSeverity is the lowest Schwere that refuses a record: 3 is an error in "Melden und
// Korrigieren", 1 a hint such as "already stored identically".
const RejectSeverity = 3

// The entities and their date column, by the notice kind they report.
var entities = map[notice.Kind]struct{ entity, date string }{
	notice.KindMoveOn:  {"ZUGANG", "ZUGA_DAT"},
	notice.KindMoveOff: {"ABGANG", "ABGA_DAT"},
	notice.KindDeath:   {"TOD", "TOD_DAT"},
	notice.KindBirth:   {"GEBURT", "GEB_DATR"},
}

// sexCodes maps Report.Sex to GESCHL_R.
var sexCodes = map[string]string{"male": "1", "female": "2"}

// breedCode is a RASSE code as the data dictionary gives it: an integer of up to 3 digits.
var breedCode = regexp.MustCompile(`^[0-9]{1,3}$`)

// Client talks to HI-Tier's REST interface. The credentials and the holding come with each
// call; the client keeps only the rows of a batch already answered when a later row of it
// failed, so that the batch's retry does not send them again.
type Client struct {
	// URL is the base of the interface (DefaultURL, TestURL, or a test registry's).
	URL string
	// Coworker is the Mitbenutzer number of the login ("0", the keeper themselves, when
	// empty).
	Coworker string
	// SessionTimeout is the session's lifetime HI-Tier is asked for (30 seconds when zero).
	SessionTimeout time.Duration
	// HTTP is the client requests go through (http.DefaultClient when nil); Now the clock
	// future dates are refused by (time.Now when nil).
	HTTP *http.Client
	Now  func() time.Time

	mu      sync.Mutex
	partial map[string][]row
}

var _ registry.Adapter = (*Client)(nil)

// Name is the channel submissions through HI-Tier's REST interface are stored under.
func (c *Client) Name() string { return "de_hitier" }

// Supports reports whether the adapter reports the kind: arrivals, departures, deaths,
// births, and corrections (only those that withdraw one of these: an amendment has no
// published shape and is refused by Submit). Tagging is part of the birth report; tag
// replacements go another way.
func (c *Client) Supports(k notice.Kind) bool {
	_, ok := entities[k]
	return ok || k == notice.KindCorrection
}

// row is one report as sent and answered.
type row struct {
	Entity string   `json:"e"`
	Action string   `json:"a"`
	LOM    string   `json:"l"`
	OK     bool     `json:"ok"`
	Causes []string `json:"c,omitempty"`
	// body is the JSON sent, which a retry compares before reusing an answer.
	body []byte
}

// request is one report ready to send.
type request struct {
	entity, action, lom string
	body                []byte
}

// login is the credentials of a batch.
type login struct {
	bnr, mbn, pin, mandant string
}

// check validates the holding and the credentials and returns the holding's BNR15 and the
// login.
func (c *Client) check(h registry.Holding) (string, login, error) {
	if h.Scheme != scheme.DEBNR {
		return "", login{}, &registry.Error{Message: fmt.Sprintf("HI-Tier serves German holdings (%s), not %q", scheme.DEBNR, h.Scheme)}
	}
	bnr, err := scheme.Canonical(h.Scheme, h.Identifier)
	if err != nil {
		return "", login{}, &registry.Error{Message: fmt.Sprintf("holding %q: %v", h.Identifier, err)}
	}
	user, err := scheme.Canonical(scheme.DEBNR, h.Username)
	if err != nil {
		return "", login{}, &registry.Error{Message: fmt.Sprintf("the HI-Tier login %q is not a Betriebsnummer (BNR15): %v", h.Username, err)}
	}
	if h.Password == "" {
		return "", login{}, &registry.Error{Message: "the HI-Tier login has no PIN"}
	}
	l := login{bnr: "276" + user, mbn: c.Coworker, pin: h.Password}
	if l.mbn == "" {
		l.mbn = "0"
	}
	if user != bnr {
		// An agent (a Bevollmächtigter) logs in with their own number and names the
		// holding they report for.
		l.mandant = "276" + bnr
	}
	return "276" + bnr, l, nil
}

// refuse is the error for a report the adapter will not send.
func refuse(r registry.Report, format string, args ...any) error {
	return &registry.Error{Message: fmt.Sprintf("report %s: ", r.Key) + fmt.Sprintf(format, args...)}
}

// hitDate checks a YYYY-MM-DD date, not after today anywhere on earth, and returns it as
// DD.MM.YYYY.
func (c *Client) hitDate(r registry.Report, field, d string) (string, error) {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return "", refuse(r, "%s %q is not a date as YYYY-MM-DD", field, d)
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	// UTC+14 is the first zone to start a day: a date later than its today is in the
	// future for everyone.
	if latest := now().UTC().Add(14 * time.Hour).Format(time.DateOnly); d > latest {
		return "", refuse(r, "%s %s is in the future", field, d)
	}
	return t.Format("02.01.2006"), nil
}

// build turns a report into its request: the entity and action, and the row as a JSON
// object of HI-Tier columns.
func (c *Client) build(bnr15 string, r registry.Report) (request, error) {
	kind, action := r.Kind, ActionInsert
	if kind == notice.KindCorrection {
		if !r.Withdraw {
			return request{}, refuse(r, "HI-Tier's REST interface takes a correction here only as a Storno (Withdraw); amend the record in HI-Tier's own program")
		}
		kind, action = r.Corrects, ActionStorno
	}
	e, ok := entities[kind]
	if !ok {
		if r.Kind == notice.KindCorrection {
			return request{}, refuse(r, "Corrects: HI-Tier's REST adapter does not report %q notices, so it cannot withdraw one", r.Corrects)
		}
		return request{}, refuse(r, "HI-Tier's REST adapter does not report %s notices", r.Kind)
	}
	lom, err := hitiercsv.LOM(r.Tag)
	if err != nil {
		return request{}, refuse(r, "Tag: %v", err)
	}
	day := r.Date
	if kind == notice.KindBirth && r.BirthDate != "" {
		if action == ActionInsert && r.Date != "" && r.Date != r.BirthDate {
			return request{}, refuse(r, "Date %s and BirthDate %s of a birth differ", r.Date, r.BirthDate)
		}
		day = r.BirthDate
	}
	date, err := c.hitDate(r, "Date", day)
	if err != nil {
		return request{}, err
	}
	// The row's columns, in the order the demo client's files give them; a Storno names
	// the record by its key (the ear tag, the holding and the day).
	cols := [][2]string{{"LOM", lom}, {"BNR15", bnr15}, {e.date, date}}
	if kind == notice.KindBirth && action == ActionInsert {
		breed := strings.TrimSpace(r.Breed)
		if !breedCode.MatchString(breed) {
			return request{}, refuse(r, "Breed %q is not a HI-Tier RASSE code (up to 3 digits, HI-Tier's breed key); Herdbook does not map breed names to it", r.Breed)
		}
		n, _ := strconv.Atoi(breed)
		sex, ok := sexCodes[r.Sex]
		if !ok {
			return request{}, refuse(r, "Sex %q is neither male nor female (GESCHL_R)", r.Sex)
		}
		if r.DamTag == "" {
			return request{}, refuse(r, "DamTag is empty: a birth names its dam (LOM_MUT)")
		}
		dam, err := hitiercsv.LOM(r.DamTag)
		if err != nil {
			return request{}, refuse(r, "DamTag: %v", err)
		}
		cols = append(cols, [2]string{"RASSE", strconv.Itoa(n)}, [2]string{"GESCHL_R", sex}, [2]string{"LOM_MUT", dam})
	}
	return request{entity: e.entity, action: action, lom: lom, body: object(cols)}, nil
}

// object writes columns as a JSON object in their order (a map would sort them).
func object(cols [][2]string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[0])
		v, _ := json.Marshal(kv[1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Submit checks every report, then sends each as a request of its own under one HI-Tier
// session and returns a receipt holding the answers. A report the adapter cannot send (a
// kind it does not report, a tag that is not German, a date that is not YYYY-MM-DD or is in
// the future, a birth without its sex, breed code or dam) refuses the whole batch before
// anything is sent, naming the report and the field. When a request fails on the way (a
// temporary error), the rows answered before it are kept under batchID and not sent again
// when the batch is retried.
func (c *Client) Submit(ctx context.Context, h registry.Holding, batchID string, reports []registry.Report) (string, error) {
	bnr15, l, err := c.check(h)
	if err != nil {
		return "", err
	}
	if len(reports) == 0 {
		return "", &registry.Error{Message: "an empty batch"}
	}
	reqs := make([]request, len(reports))
	for i, r := range reports {
		if reqs[i], err = c.build(bnr15, r); err != nil {
			return "", err
		}
	}
	key := bnr15 + "\x00" + batchID
	c.mu.Lock()
	done := c.partial[key]
	delete(c.partial, key)
	c.mu.Unlock()
	s := &session{c: c, login: l}
	defer s.close()
	rows := make([]row, 0, len(reqs))
	for i, rq := range reqs {
		if i < len(done) && done[i].Entity == rq.entity && done[i].Action == rq.action && bytes.Equal(done[i].body, rq.body) {
			rows = append(rows, done[i])
			continue
		}
		list, err := s.send(ctx, rq)
		if err != nil {
			if len(rows) > 0 && batchID != "" {
				c.keep(key, rows)
			}
			return "", err
		}
		rows = append(rows, answer(rq, list))
	}
	return encodeReceipt(rows), nil
}

// keep remembers the answered rows of an unfinished batch, forgetting the oldest batches
// beyond a bound so that batches never retried do not pile up.
func (c *Client) keep(key string, rows []row) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.partial == nil {
		c.partial = map[string][]row{}
	}
	if len(c.partial) >= 256 {
		for k := range c.partial {
			delete(c.partial, k)
			break
		}
	}
	c.partial[key] = rows
}

// message is one entry of an answer's Fehlerliste.
type message struct {
	Severity int    `json:"Schwere"`
	Code     any    `json:"Plausinummer"`
	Text     string `json:"Message"`
}

// answer turns a request's Fehlerliste into its row: refused when a message has Schwere 3
// or more, its causes those messages as "Plausinummer: Message".
func answer(rq request, list []message) row {
	out := row{Entity: rq.entity, Action: rq.action, LOM: rq.lom, OK: true, body: rq.body}
	for _, m := range list {
		if m.Severity < RejectSeverity {
			continue
		}
		out.OK = false
		text := strings.TrimSpace(m.Text)
		if code := strings.TrimSpace(fmt.Sprint(m.Code)); m.Code != nil && code != "" && code != "0" {
			text = code + ": " + text
		}
		out.Causes = append(out.Causes, text)
	}
	return out
}

// receiptPrefix marks a receipt of this adapter and its format's version.
const receiptPrefix = "hitier1:"

func encodeReceipt(rows []row) string {
	b, _ := json.Marshal(rows)
	return receiptPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func decodeReceipt(s string) ([]row, error) {
	rest, ok := strings.CutPrefix(s, receiptPrefix)
	if !ok {
		return nil, &registry.Error{Message: "not a receipt of the HI-Tier REST adapter"}
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	var rows []row
	if err == nil {
		err = json.Unmarshal(b, &rows)
	}
	if err != nil {
		return nil, &registry.Error{Message: "the HI-Tier receipt cannot be read: " + err.Error()}
	}
	return rows, nil
}

// Results returns the answers the receipt holds, one per report it names. HI-Tier answered
// them when they were sent, so there is nothing to wait for. A report is matched to the row
// at its own position when that row is for its ear tag and entity, else to the first
// unclaimed row that is; reports no row names are left out.
func (c *Client) Results(ctx context.Context, h registry.Holding, receipt string, reports []registry.Report) ([]registry.Answer, error) {
	bnr15, _, err := c.check(h)
	if err != nil {
		return nil, err
	}
	rows, err := decodeReceipt(receipt)
	if err != nil {
		return nil, err
	}
	claimed := make([]bool, len(rows))
	var out []registry.Answer
	for i, r := range reports {
		rq, err := c.build(bnr15, r)
		if err != nil {
			// A report the adapter could not have sent has no row; so do reports whose
			// date has since changed.
			rq = request{}
			if lom, lerr := hitiercsv.LOM(r.Tag); lerr == nil {
				rq.lom = lom
			}
		}
		fits := func(j int) bool {
			w := rows[j]
			return !claimed[j] && w.LOM == rq.lom && (rq.entity == "" || (w.Entity == rq.entity && w.Action == rq.action))
		}
		j := -1
		if i < len(rows) && fits(i) {
			j = i
		} else {
			for k := range rows {
				if fits(k) {
					j = k
					break
				}
			}
		}
		if j < 0 {
			continue
		}
		claimed[j] = true
		a := registry.Answer{Key: r.Key, Accepted: rows[j].OK, Causes: rows[j].Causes}
		if !a.Accepted && len(a.Causes) == 0 {
			a.Causes = []string{"refused by HI-Tier without a message"}
		}
		out = append(out, a)
	}
	return out, nil
}

// session is a batch's conversation with HI-Tier: the first request logs in with the PIN,
// HI-Tier's cache_secret stands for it in the others, and close logs off.
type session struct {
	c      *Client
	login  login
	secret string
}

// maxAnswer bounds an answer: a write's Fehlerliste is a few lines.
const maxAnswer = 4 << 20

// reply is what HI-Tier answers a write.
type reply struct {
	Secret  string     `json:"cache_secret"`
	List    *[]message `json:"Fehlerliste"`
	Message string     `json:"Message"`
}

func (s *session) base() string {
	u := s.c.URL
	if u == "" {
		u = DefaultURL
	}
	return strings.TrimRight(u, "/")
}

// send sends one request and returns its Fehlerliste. A session HI-Tier no longer knows is
// logged into again once, with the PIN.
func (s *session) send(ctx context.Context, rq request) ([]message, error) {
	list, err := s.do(ctx, rq)
	var re *registry.Error
	if errors.As(err, &re) && s.secret != "" && re.Code == strconv.Itoa(http.StatusUnauthorized) {
		s.secret = ""
		list, err = s.do(ctx, rq)
	}
	return list, err
}

func (s *session) do(ctx context.Context, rq request) ([]message, error) {
	q := url.Values{}
	method := http.MethodDelete
	if rq.action != ActionStorno {
		method = http.MethodPost
		q.Set("aktion", rq.action)
	}
	if s.login.mandant != "" {
		q.Set("mandant", s.login.mandant)
	}
	u := s.base() + "/" + url.PathEscape(rq.entity)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	hr, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(rq.body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json; charset=utf-8")
	hr.Header.Set("Accept", "application/json")
	s.authenticate(hr, true)
	res, err := s.c.client().Do(hr)
	if err != nil {
		return nil, &registry.Error{Message: "HI-Tier unreachable: " + err.Error(), Temporary: true}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return nil, &registry.Error{Message: "reading HI-Tier's answer: " + err.Error(), Temporary: true}
	}
	var rp reply
	perr := json.Unmarshal(bytes.TrimPrefix(raw, []byte("\uFEFF")), &rp)
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, failure(res.StatusCode, rp, perr)
	}
	if perr != nil || rp.List == nil {
		return nil, &registry.Error{Message: fmt.Sprintf("HI-Tier answered %s %s with something other than a Fehlerliste", method, rq.entity), Temporary: true}
	}
	if rp.Secret != "" {
		s.secret = rp.Secret
	}
	return *rp.List, nil
}

// failure is the error for an answer other than 2xx: temporary for 5xx and 429; 401 and 403
// are the login refused, and other 4xx a request HI-Tier will not take as it is.
func failure(status int, rp reply, perr error) error {
	e := &registry.Error{Code: strconv.Itoa(status), Message: fmt.Sprintf("HI-Tier answered HTTP %d", status),
		Temporary: status >= 500 || status == http.StatusTooManyRequests}
	if perr == nil && strings.TrimSpace(rp.Message) != "" {
		e.Message += ": " + strings.TrimSpace(rp.Message)
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		e.Message = "HI-Tier refused the login (BNR15, Mitbenutzer and PIN): " + e.Message
	}
	return e
}

// authenticate sets the login headers: the PIN until HI-Tier gave a session secret, the
// secret after; the timeout asks for (or keeps) the session.
func (s *session) authenticate(hr *http.Request, timeout bool) {
	hr.Header.Set(HeaderBNR, s.login.bnr)
	hr.Header.Set(HeaderMBN, s.login.mbn)
	if s.secret != "" {
		hr.Header.Set(HeaderSecret, s.secret)
	} else {
		hr.Header.Set(HeaderPIN, s.login.pin)
	}
	if timeout {
		d := s.c.SessionTimeout
		if d <= 0 {
			d = 30 * time.Second
		}
		hr.Header.Set(HeaderTimeout, strconv.Itoa(int(d/time.Second)))
	}
}

// close logs off a session HI-Tier opened, as the demo client does at the end of a job. A
// failure is ignored: the session ends by its timeout anyway.
func (s *session) close() {
	if s.secret == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.base()+"/"+SessionEntity, strings.NewReader("{}"))
	if err != nil {
		return
	}
	hr.Header.Set("Content-Type", "application/json; charset=utf-8")
	s.authenticate(hr, false)
	if res, err := s.c.client().Do(hr); err == nil {
		io.Copy(io.Discard, io.LimitReader(res.Body, maxAnswer))
		res.Body.Close()
	}
	s.secret = ""
}

func (c *Client) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}
