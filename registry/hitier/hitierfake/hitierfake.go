// Package hitierfake is a test registry speaking HI-Tier's REST v2 shapes (docs/registry.md):
// the tests of registry/hitier and of the outbox start it as a real HTTP server. It is not a
// mock of Herdbook's adapter interface: it parses the requests as the demo client
// ralphmlrp/HitRestClient (commit e151f61) and HI-Tier's apiHelp show them and keeps its own
// copy of the cattle.
package hitierfake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/herdbook/herdbook/registry/hitier"
)

// Registry is a test registry speaking HI-Tier's REST v2 shapes as the demo client
// ralphmlrp/HitRestClient (commit e151f61) and HI-Tier's apiHelp show them: POST
// /api/hit/{ENTITY}?aktion=IS with a JSON object of columns inserts a record, DELETE
// /api/hit/{ENTITY} with the record's key cancels it (SS), DELETE /api/hit/session logs off;
// the login comes in the hit-bnr, hit-mbn and hit-pin headers, and a cache_secret it hands
// out stands for the PIN (hit-secret) until the session ends. Each write is answered at once
// with a Fehlerliste of {Schwere, Plausinummer, Message}; a call refused as a whole with a
// {Message}. It keeps its own copy of the cattle and applies plausibility checks before it
// stores a record. Its Plausinummer values (FAKE-…), its texts and its use of HTTP 401 for a
// refused login are its own: HI-Tier's are not in the references.
type Registry struct {
	Mu sync.Mutex
	// accounts maps a login BNR15 to its PIN; agents the holdings (BNR15) each login may
	// report for besides its own.
	Accounts map[string]string
	Agents   map[string][]string
	Today    string
	Cattle   map[string]*Animal
	records  []*fakeRecord
	secrets  map[string]string
	// fail answers the calls whose number (from 1, counting every call) it holds with 503
	// before reading them.
	Fail map[int]bool
	// calls counts the calls, pins the calls that carried a PIN, logoffs the sessions ended,
	// applied the records stored or cancelled.
	Calls, Pins, Logoffs, Applied int
	// bodies are the JSON bodies of the writes, in order.
	Bodies []string
	// forget ends every session after the write that opened it, as a session's timeout
	// would.
	Forget bool
}

// Animal is one of its cattle.
type Animal struct {
	Holding string // the BNR15 it is on, "" when on none
	Dead    bool
}

type fakeRecord struct {
	entity, lom, bnr15, date string
	cols                     map[string]string
	open                     bool
}

// New returns a registry on 2026-03-20 with no accounts: give it Accounts (a login BNR15 and
// its PIN), Agents and Cattle before serving.
func New() *Registry {
	return &Registry{Accounts: map[string]string{}, Agents: map[string][]string{}, Today: "2026-03-20",
		Cattle: map[string]*Animal{}, secrets: map[string]string{}, Fail: map[int]bool{}}
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

// ServeHTTP answers a HI-Tier REST call.
func (f *Registry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Calls++
	if f.Fail[f.Calls] {
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
		f.Logoffs++
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
	f.Bodies = append(f.Bodies, string(body))
	var cols map[string]string
	if err := json.Unmarshal(body, &cols); err != nil {
		f.refuse(w, http.StatusBadRequest, "the body is not a JSON object of columns: "+err.Error())
		return
	}
	may := append([]string{login}, f.Agents[login]...)
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
	if f.Forget {
		clear(f.secrets)
	}
	writeJSON(w, http.StatusOK, out)
}

// login checks the credentials: a known BNR15 with its PIN, or a secret the fake issued to
// that BNR15. It answers 401 and returns false when they fail.
func (f *Registry) login(w http.ResponseWriter, r *http.Request) (string, bool) {
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
	pin, ok := f.Accounts[bnr]
	if !ok || r.Header.Get(hitier.HeaderPIN) != pin {
		f.refuse(w, http.StatusUnauthorized, "Anmeldung fehlgeschlagen: Betriebsnummer oder PIN falsch")
		return "", false
	}
	f.Pins++
	return bnr, true
}

func reject(code, msg string) fakeMessage { return fakeMessage{3, code, msg} }

// insert checks an IS and stores it when it passes.
func (f *Registry) insert(entity, dateCol string, need []string, cols map[string]string, may []string) []fakeMessage {
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
	a := f.Cattle[lom]
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
		if dam := f.Cattle[cols["LOM_MUT"]]; dam == nil || dam.Dead || dam.Holding != holding {
			return []fakeMessage{reject("FAKE-113", "Mutter zum Geburtsdatum nicht im Bestand")}
		}
		f.Cattle[lom] = &Animal{Holding: holding}
	case "ZUGANG":
		if a == nil {
			return []fakeMessage{reject("FAKE-120", "Ohrmarke unbekannt")}
		}
		if a.Dead {
			return []fakeMessage{reject("FAKE-121", "Tier ist tot")}
		}
		if a.Holding == holding {
			return []fakeMessage{reject("FAKE-122", "Tier ist bereits im Bestand (doppelter Zugang)")}
		}
		a.Holding = holding
	case "ABGANG", "TOD":
		if a == nil {
			return []fakeMessage{reject("FAKE-120", "Ohrmarke unbekannt")}
		}
		if a.Dead || a.Holding != holding {
			return []fakeMessage{reject("FAKE-130", "Tier ist nicht im Bestand")}
		}
		a.Holding = ""
		a.Dead = entity == "TOD"
	}
	f.records = append(f.records, &fakeRecord{entity: entity, lom: lom, bnr15: holding, date: date, cols: cols, open: true})
	f.Applied++
	return nil
}

// storno cancels the open record of a key and undoes its effect on the cattle.
func (f *Registry) storno(entity, dateCol string, cols map[string]string, may []string) []fakeMessage {
	lom, holding, date := cols["LOM"], cols["BNR15"], cols[dateCol]
	if msg := f.common(lom, holding, date, may); msg != nil {
		return []fakeMessage{*msg}
	}
	for _, rec := range f.records {
		if !rec.open || rec.entity != entity || rec.lom != lom || rec.bnr15 != holding || rec.date != date {
			continue
		}
		rec.open = false
		a := f.Cattle[lom]
		switch entity {
		case "GEBURT":
			delete(f.Cattle, lom)
		case "ZUGANG":
			a.Holding = ""
		case "ABGANG", "TOD":
			a.Holding, a.Dead = holding, false
		}
		f.Applied++
		return nil
	}
	return []fakeMessage{reject("FAKE-140", "keine offene Meldung zu diesem Schlüssel")}
}

// common checks what every write carries: the ear tag, the holding and the date.
func (f *Registry) common(lom, holding, date string, may []string) *fakeMessage {
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
	if d.Format(time.DateOnly) > f.Today {
		m := reject("FAKE-013", "Datum liegt in der Zukunft")
		return &m
	}
	return nil
}

func (f *Registry) refuse(w http.ResponseWriter, status int, msg string) {
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
