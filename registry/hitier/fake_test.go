package hitier_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdbook/herdbook/registry/hitier"
)

// fakeHIT is a test registry speaking HI-Tier's REST v2 shapes as the demo client
// ralphmlrp/HitRestClient (commit e151f61) and HI-Tier's apiHelp show them: POST
// /api/hit/{ENTITY}?aktion=IS with a JSON object of columns inserts a record, DELETE
// /api/hit/{ENTITY} with the record's key cancels it (SS), DELETE /api/hit/session logs off;
// the login comes in the hit-bnr, hit-mbn and hit-pin headers, and a cache_secret it hands
// out stands for the PIN (hit-secret) until the session ends. Each write is answered at once
// with a Fehlerliste of {Schwere, Plausinummer, Message}; a call refused as a whole with a
// {Message}. It keeps its own copy of the cattle and applies plausibility checks before it
// stores a record. Its Plausinummer values (FAKE-…), its texts and its use of HTTP 401 for a
// refused login are its own: HI-Tier's are not in the references.
type fakeHIT struct {
	t *testing.T

	mu sync.Mutex
	// accounts maps a login BNR15 to its PIN; agents the holdings (BNR15) each login may
	// report for besides its own.
	accounts map[string]string
	agents   map[string][]string
	today    string
	cattle   map[string]*fakeAnimal
	records  []*fakeRecord
	secrets  map[string]string
	// fail answers the calls whose number (from 1, counting every call) it holds with 503
	// before reading them.
	fail map[int]bool
	// calls counts the calls, pins the calls that carried a PIN, logoffs the sessions ended,
	// applied the records stored or cancelled.
	calls, pins, logoffs, applied int
	// bodies are the JSON bodies of the writes, in order.
	bodies []string
	// forget ends every session after the write that opened it, as a session's timeout
	// would.
	forget bool
}

type fakeAnimal struct {
	holding string // the BNR15 it is on, "" when on none
	dead    bool
}

type fakeRecord struct {
	entity, lom, bnr15, date string
	cols                     map[string]string
	open                     bool
}

func newFakeHIT(t *testing.T) (*fakeHIT, *httptest.Server) {
	f := &fakeHIT{t: t, accounts: map[string]string{keeperBNR15: "900001", agentBNR15: "424242"},
		agents: map[string][]string{agentBNR15: {keeperBNR15}}, today: "2026-03-20",
		cattle: map[string]*fakeAnimal{}, secrets: map[string]string{}, fail: map[int]bool{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// The fake's entities: the date column and, for each, the columns an IS needs.
var fakeEntities = map[string]struct {
	date string
	cols []string
}{
	"ZUGANG": {"ZUGA_DAT", []string{"LOM", "BNR15", "ZUGA_DAT"}},
	"ABGANG": {"ABGA_DAT", []string{"LOM", "BNR15", "ABGA_DAT"}},
	"TOD":    {"TOD_DAT", []string{"LOM", "BNR15", "TOD_DAT"}},
	"GEBURT": {"GEB_DATR", []string{"LOM", "BNR15", "GEB_DATR", "RASSE", "GESCHL_R", "LOM_MUT"}},
}

var (
	lom15  = regexp.MustCompile(`^276[0-9]{12}$`)
	bnr15  = regexp.MustCompile(`^276[0-9]{12}$`)
	rasse  = regexp.MustCompile(`^[1-9][0-9]{0,2}$`)
	geschl = regexp.MustCompile(`^[12]$`)
)

type fakeMessage struct {
	Schwere      int    `json:"Schwere"`
	Plausinummer string `json:"Plausinummer"`
	Message      string `json:"Message"`
}

func (f *fakeHIT) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail[f.calls] {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	entity, ok := strings.CutPrefix(r.URL.Path, "/api/hit/")
	if !ok || entity == "" {
		f.refuse(w, http.StatusNotFound, "unknown path "+r.URL.Path)
		return
	}
	entity = strings.ToUpper(entity)
	login, ok := f.login(w, r)
	if !ok {
		return
	}
	if entity == "SESSION" {
		if r.Method != http.MethodDelete {
			f.refuse(w, http.StatusMethodNotAllowed, "a session is only ended")
			return
		}
		delete(f.secrets, r.Header.Get(hitier.HeaderSecret))
		f.logoffs++
		writeJSON(w, http.StatusOK, map[string]any{"Fehlerliste": []fakeMessage{{0, "", "abgemeldet"}}})
		return
	}
	spec, ok := fakeEntities[entity]
	if !ok {
		f.refuse(w, http.StatusBadRequest, "unknown entity "+entity)
		return
	}
	var action string
	switch r.Method {
	case http.MethodPost:
		action = r.URL.Query().Get("aktion")
		if action != "IS" {
			f.refuse(w, http.StatusBadRequest, "this fake takes POST with aktion=IS only, not "+strconv.Quote(action))
			return
		}
	case http.MethodDelete:
		action = "SS"
	default:
		f.refuse(w, http.StatusMethodNotAllowed, r.Method+" is not a write this fake takes")
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		f.refuse(w, http.StatusUnsupportedMediaType, "expected application/json")
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.bodies = append(f.bodies, string(body))
	var cols map[string]string
	if err := json.Unmarshal(body, &cols); err != nil {
		f.refuse(w, http.StatusBadRequest, "the body is not a JSON object of columns: "+err.Error())
		return
	}
	may := append([]string{login}, f.agents[login]...)
	if m := r.URL.Query().Get("mandant"); m != "" {
		if !contains(may, m) {
			f.refuse(w, http.StatusForbidden, "no authority for holding "+m)
			return
		}
		may = []string{m}
	}
	var list []fakeMessage
	if action == "IS" {
		list = f.insert(entity, spec.date, spec.cols, cols, may)
	} else {
		list = f.storno(entity, spec.date, cols, may)
	}
	if len(list) == 0 {
		list = []fakeMessage{{0, "", "Meldung gespeichert"}}
	}
	out := map[string]any{"Fehlerliste": list}
	if d, _ := strconv.Atoi(r.Header.Get(hitier.HeaderTimeout)); d > 0 && r.Header.Get(hitier.HeaderSecret) == "" {
		secret := newSecret()
		f.secrets[secret] = login
		out["cache_secret"] = secret
	}
	if f.forget {
		clear(f.secrets)
	}
	writeJSON(w, http.StatusOK, out)
}

// login checks the credentials: a known BNR15 with its PIN, or a secret the fake issued to
// that BNR15. It answers 401 and returns false when they fail.
func (f *fakeHIT) login(w http.ResponseWriter, r *http.Request) (string, bool) {
	bnr := r.Header.Get(hitier.HeaderBNR)
	if r.Header.Get(hitier.HeaderMBN) != "0" {
		f.refuse(w, http.StatusUnauthorized, "unknown Mitbenutzer")
		return "", false
	}
	if secret := r.Header.Get(hitier.HeaderSecret); secret != "" {
		if f.secrets[secret] != bnr {
			f.refuse(w, http.StatusUnauthorized, "session unknown or ended")
			return "", false
		}
		return bnr, true
	}
	pin, ok := f.accounts[bnr]
	if !ok || r.Header.Get(hitier.HeaderPIN) != pin {
		f.refuse(w, http.StatusUnauthorized, "Anmeldung fehlgeschlagen: Betriebsnummer oder PIN falsch")
		return "", false
	}
	f.pins++
	return bnr, true
}

func reject(code, msg string) fakeMessage { return fakeMessage{3, code, msg} }

// insert checks an IS and stores it when it passes.
func (f *fakeHIT) insert(entity, dateCol string, need []string, cols map[string]string, may []string) []fakeMessage {
	for _, c := range need {
		if cols[c] == "" {
			return []fakeMessage{reject("FAKE-001", "Spalte "+c+" fehlt")}
		}
	}
	for c := range cols {
		if !contains(need, c) {
			return []fakeMessage{reject("FAKE-002", "Spalte "+c+" unbekannt in "+entity)}
		}
	}
	lom, holding, date := cols["LOM"], cols["BNR15"], cols[dateCol]
	if msg := f.common(lom, holding, date, may); msg != nil {
		return []fakeMessage{*msg}
	}
	for _, rec := range f.records {
		if rec.open && rec.entity == entity && rec.lom == lom && rec.bnr15 == holding && rec.date == date {
			same := true
			for _, c := range need {
				same = same && rec.cols[c] == cols[c]
			}
			if same {
				return []fakeMessage{{1, "FAKE-100", "Meldung liegt bereits identisch vor"}}
			}
			return []fakeMessage{reject("FAKE-101", "Meldung mit gleichem Schlüssel und anderen Daten liegt vor")}
		}
	}
	a := f.cattle[lom]
	switch entity {
	case "GEBURT":
		if a != nil {
			return []fakeMessage{reject("FAKE-110", "Ohrmarke ist bereits vergeben")}
		}
		if !rasse.MatchString(cols["RASSE"]) {
			return []fakeMessage{reject("FAKE-111", "RASSE ist kein Rasseschlüssel")}
		}
		if !geschl.MatchString(cols["GESCHL_R"]) {
			return []fakeMessage{reject("FAKE-112", "GESCHL_R ist weder 1 noch 2")}
		}
		if dam := f.cattle[cols["LOM_MUT"]]; dam == nil || dam.dead || dam.holding != holding {
			return []fakeMessage{reject("FAKE-113", "Mutter zum Geburtsdatum nicht im Bestand")}
		}
		f.cattle[lom] = &fakeAnimal{holding: holding}
	case "ZUGANG":
		if a == nil {
			return []fakeMessage{reject("FAKE-120", "Ohrmarke unbekannt")}
		}
		if a.dead {
			return []fakeMessage{reject("FAKE-121", "Tier ist tot")}
		}
		if a.holding == holding {
			return []fakeMessage{reject("FAKE-122", "Tier ist bereits im Bestand (doppelter Zugang)")}
		}
		a.holding = holding
	case "ABGANG", "TOD":
		if a == nil {
			return []fakeMessage{reject("FAKE-120", "Ohrmarke unbekannt")}
		}
		if a.dead || a.holding != holding {
			return []fakeMessage{reject("FAKE-130", "Tier ist nicht im Bestand")}
		}
		a.holding = ""
		a.dead = entity == "TOD"
	}
	f.records = append(f.records, &fakeRecord{entity: entity, lom: lom, bnr15: holding, date: date, cols: cols, open: true})
	f.applied++
	return nil
}

// storno cancels the open record of a key and undoes its effect on the cattle.
func (f *fakeHIT) storno(entity, dateCol string, cols map[string]string, may []string) []fakeMessage {
	lom, holding, date := cols["LOM"], cols["BNR15"], cols[dateCol]
	if msg := f.common(lom, holding, date, may); msg != nil {
		return []fakeMessage{*msg}
	}
	for _, rec := range f.records {
		if !rec.open || rec.entity != entity || rec.lom != lom || rec.bnr15 != holding || rec.date != date {
			continue
		}
		rec.open = false
		a := f.cattle[lom]
		switch entity {
		case "GEBURT":
			delete(f.cattle, lom)
		case "ZUGANG":
			a.holding = ""
		case "ABGANG", "TOD":
			a.holding, a.dead = holding, false
		}
		f.applied++
		return nil
	}
	return []fakeMessage{reject("FAKE-140", "keine offene Meldung zu diesem Schlüssel")}
}

// common checks what every write carries: the ear tag, the holding and the date.
func (f *fakeHIT) common(lom, holding, date string, may []string) *fakeMessage {
	if !lom15.MatchString(lom) {
		m := reject("FAKE-010", "LOM ist keine gültige Ohrmarke")
		return &m
	}
	if !bnr15.MatchString(holding) || !contains(may, holding) {
		m := reject("FAKE-011", "keine Kompetenz für Betrieb "+holding)
		return &m
	}
	d, err := time.Parse("02.01.2006", date)
	if err != nil {
		m := reject("FAKE-012", "Datum ist nicht TT.MM.JJJJ")
		return &m
	}
	if d.Format(time.DateOnly) > f.today {
		m := reject("FAKE-013", "Datum liegt in der Zukunft")
		return &m
	}
	return nil
}

func (f *fakeHIT) refuse(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"Message": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		panic(fmt.Sprint("fake: ", err))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func newSecret() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// httptestJSON starts a server that answers every call with status and body, for answers the
// fake HI-Tier never gives.
func httptestJSON(t *testing.T, status int, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
