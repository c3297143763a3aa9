package rest

import (
	"bufio"
	"html"
	"net/http"
	"strings"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// passportHoldingJSON is a holding by scheme and number.
type passportHoldingJSON struct {
	Scheme string `json:"scheme"`
	Number string `json:"number"`
}

type passportParentJSON struct {
	AnimalID           string  `json:"animal_id"`
	Outside            bool    `json:"outside"`
	Tag                *string `json:"tag"`
	Name               *string `json:"name"`
	Registry           *string `json:"registry"`
	RegistrationNumber *string `json:"registration_number"`
}

type passportMovementJSON struct {
	Event    string               `json:"event"`
	Kind     string               `json:"kind"`
	Date     string               `json:"date"`
	From     *passportHoldingJSON `json:"from"`
	To       *passportHoldingJSON `json:"to"`
	Disposal *string              `json:"disposal"`
}

type passportJSON struct {
	AnimalID     string                 `json:"animal_id"`
	FarmID       string                 `json:"farm_id"`
	AsOf         string                 `json:"as_of"`
	OfficialTag  string                 `json:"official_tag"`
	Tag          string                 `json:"tag"`
	Name         *string                `json:"name"`
	BirthDate    *string                `json:"birth_date"`
	Sex          *string                `json:"sex"`
	Breed        *string                `json:"breed"`
	BreedCode    *string                `json:"breed_code"`
	BreedScheme  *string                `json:"breed_scheme"`
	GeneticDam   *passportParentJSON    `json:"genetic_dam"`
	SurrogateDam *passportParentJSON    `json:"surrogate_dam"`
	Sire         *passportParentJSON    `json:"sire"`
	Holding      *passportHoldingJSON   `json:"holding"`
	Movements    []passportMovementJSON `json:"movements"`
}

func passportHolding(h *herdbook.PassportHolding) *passportHoldingJSON {
	if h == nil {
		return nil
	}
	return &passportHoldingJSON{Scheme: h.Scheme, Number: h.Number}
}

func passportParent(p *herdbook.PassportParent) *passportParentJSON {
	if p == nil {
		return nil
	}
	return &passportParentJSON{AnimalID: p.AnimalID.String(), Outside: p.Outside, Tag: p.Tag, Name: p.Name,
		Registry: p.Registry, RegistrationNumber: p.RegistrationNumber}
}

func toPassportJSON(p *herdbook.Passport) passportJSON {
	out := passportJSON{AnimalID: p.AnimalID.String(), FarmID: p.FarmID.String(), AsOf: p.AsOf, OfficialTag: p.OfficialTag,
		Tag: p.Tag, Name: p.Name, BirthDate: p.BirthDate, Sex: p.Sex, Breed: p.Breed, BreedCode: p.BreedCode,
		BreedScheme: p.BreedScheme, GeneticDam: passportParent(p.GeneticDam), SurrogateDam: passportParent(p.SurrogateDam),
		Sire: passportParent(p.Sire), Holding: passportHolding(p.Holding), Movements: make([]passportMovementJSON, len(p.Movements))}
	for i, m := range p.Movements {
		out.Movements[i] = passportMovementJSON{Event: m.Event, Kind: m.Kind, Date: m.Date, From: passportHolding(m.From),
			To: passportHolding(m.To), Disposal: m.Disposal}
	}
	return out
}

// animalPassportOf reads the passport the path and ?as_of name.
func (h *Handler) animalPassportOf(r *http.Request) (*herdbook.Passport, error) {
	farmID, id, err := h.pathIDs(r, "farm_id", "animal_id")
	if err != nil {
		return nil, err
	}
	return h.svc.AnimalPassport(r.Context(), farmID, id, r.URL.Query().Get("as_of"))
}

func (h *Handler) animalPassport(w http.ResponseWriter, r *http.Request) {
	p, err := h.animalPassportOf(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, toPassportJSON(p))
}

// passportCSS lays the passport out for paper: portrait A4, one page.
const passportCSS = `@page { size: A4 portrait; margin: 15mm; }
body { font: 10pt/1.35 system-ui, sans-serif; color: #000; margin: 0 1em; }
h1 { font-size: 15pt; margin: .5em 0 .2em; } h2 { font-size: 11pt; margin: 1.2em 0 .3em; break-after: avoid; }
p.meta { margin: 0 0 .8em; } p.empty { font-style: italic; }
table { border-collapse: collapse; width: 100%; } thead { display: table-header-group; }
th, td { border: 1px solid #888; padding: 3px 5px; vertical-align: top; text-align: left; }
th { background: #eee; } table.card th { width: 30%; } tr { break-inside: avoid; }
@media print { body { margin: 0; } }`

// animalPassportHTML writes the passport as one printable page: no script, inline print CSS,
// the animal's details then its movements. Errors answer with the envelope, as the JSON does.
func (h *Handler) animalPassportHTML(w http.ResponseWriter, r *http.Request) {
	p, err := h.animalPassportOf(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	esc := html.EscapeString
	or := func(v *string, none string) string {
		if v == nil || *v == "" {
			return none
		}
		return esc(*v)
	}
	holdingText := func(hd *herdbook.PassportHolding) string {
		if hd == nil {
			return "not known"
		}
		return esc(hd.Number) + " (" + esc(hd.Scheme) + ")"
	}
	parent := func(pp *herdbook.PassportParent) string {
		switch {
		case pp == nil:
			return "not recorded"
		case !pp.Outside:
			return or(pp.Tag, "no tag")
		}
		var parts []string
		parts = append(parts, or(pp.Name, "outside animal"))
		if pp.RegistrationNumber != nil {
			reg := esc(*pp.RegistrationNumber)
			if pp.Registry != nil {
				reg = or(pp.Registry, "") + " " + reg
			}
			parts = append(parts, reg)
		}
		return strings.Join(parts, ", ") + " (outside animal)"
	}
	breedText := or(p.Breed, "not recorded")
	switch {
	case p.BreedCode != nil:
		breedText += " — code " + esc(*p.BreedCode) + " (" + or(p.BreedScheme, "") + ")"
	case p.BreedScheme != nil && p.Breed != nil:
		breedText += " — no official code known in " + esc(*p.BreedScheme)
	}
	title := "Cattle passport: " + p.OfficialTag
	bw.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + esc(title) + "</title><style>" +
		passportCSS + "</style></head><body>\n<h1>" + esc(title) + "</h1>\n<p class=\"meta\">As the book records it on " + esc(p.AsOf) +
		". Animal " + p.AnimalID.String() + ", farm " + p.FarmID.String() + ". Not the official passport: the registry issues that.</p>\n")
	bw.WriteString("<table class=\"card\"><tbody>\n")
	row := func(th, td string) { bw.WriteString("<tr><th>" + th + "</th><td>" + td + "</td></tr>\n") }
	row("Official ear tag", esc(p.OfficialTag))
	if p.Tag != p.OfficialTag {
		row("Farm tag", esc(p.Tag))
	}
	if p.Name != nil {
		row("Name", esc(*p.Name))
	}
	row("Date of birth", or(p.BirthDate, "not recorded"))
	row("Sex", or(p.Sex, "not recorded"))
	row("Breed", breedText)
	row("Genetic dam", parent(p.GeneticDam))
	if p.SurrogateDam != nil {
		row("Surrogate dam", parent(p.SurrogateDam))
	}
	row("Sire", parent(p.Sire))
	row("Holding", holdingText(p.Holding))
	bw.WriteString("</tbody></table>\n<h2>Movements</h2>\n")
	if len(p.Movements) == 0 {
		bw.WriteString("<p class=\"empty\">No birth, arrival or departure recorded on this farm by this date.</p>\n")
	} else {
		bw.WriteString("<table><thead><tr><th>Date</th><th>Event</th><th>From</th><th>To</th></tr></thead><tbody>\n")
		for _, m := range p.Movements {
			event := esc(strings.ReplaceAll(m.Kind, "_", " "))
			if m.Disposal != nil {
				event += " (" + esc(strings.ReplaceAll(*m.Disposal, "_", " ")) + ")"
			}
			from, to := holdingText(m.From), holdingText(m.To)
			switch {
			case m.Event == herdbook.PassportBirth:
				from = "born here"
			case m.Kind == "death":
				to = "died"
			}
			bw.WriteString("<tr><td>" + esc(m.Date) + "</td><td>" + event + "</td><td>" + from + "</td><td>" + to + "</td></tr>\n")
		}
		bw.WriteString("</tbody></table>\n")
	}
	bw.WriteString("</body></html>\n")
}
