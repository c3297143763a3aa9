package rest

import (
	"bufio"
	"html"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// bookCSS lays the book out for paper: landscape A4, small type, headers repeated on every
// page, rows never split across pages.
const bookCSS = `@page { size: A4 landscape; margin: 12mm; }
body { font: 9pt/1.3 system-ui, sans-serif; color: #000; margin: 0 1em; }
h1 { font-size: 14pt; margin: .5em 0 .2em; } h2 { font-size: 11pt; margin: 1.2em 0 .3em; break-after: avoid; }
p.meta { margin: 0 0 .6em; } p.empty { font-style: italic; }
table { border-collapse: collapse; width: 100%; } thead { display: table-header-group; }
th, td { border: 1px solid #888; padding: 2px 4px; vertical-align: top; text-align: left; }
th { background: #eee; } tr { break-inside: avoid; } td.n { text-align: right; white-space: nowrap; }
@media print { body { margin: 0; } }`

// bookColumn is one printed column: a title and how to fill it from a row of the section's
// CSV columns.
type bookColumn struct {
	title string
	cells []string // CSV column names joined into the cell, each on its own line
	num   bool
}

// The printed columns of each section: the CSV's columns, grouped to fit a page.
var bookColumns = map[string][]bookColumn{
	herdbook.BookAcquisitions: {
		{"Date", []string{"purchased_on"}, false},
		{"Product", []string{"medicine_name"}, false},
		{"Batch", []string{"batch"}, false},
		{"Expiry", []string{"expiry_date"}, false},
		{"Quantity", []string{"quantity", "quantity_unit"}, true},
		{"Supplier", []string{"supplier_name", "supplier_address"}, false},
		{"Proof of acquisition", []string{"document_reference", "file_id"}, false},
		{"Recorded", []string{"recorded_at"}, false},
	},
	herdbook.BookAdministration: {
		{"First given", []string{"date"}, false},
		{"Last given", []string{"last_administration"}, false},
		{"Days", []string{"treatment_days"}, true},
		{"Animal: official tag, EID, farm tag", []string{"animal_official_tag", "animal_eid", "animal_tag"}, false},
		{"Group", []string{"group_name"}, false},
		{"Product", []string{"medicine_name", "active_substance"}, false},
		{"Batch", []string{"batch"}, false},
		{"Quantity per animal", []string{"quantity_per_animal", "quantity_unit"}, true},
		{"Quantity in all", []string{"quantity_total"}, true},
		{"Dose, route", []string{"dose", "unit", "route"}, false},
		{"Reason", []string{"reason"}, false},
		{"Prescribing vet", []string{"prescribing_vet", "prescribing_practice"}, false},
		{"Given by", []string{"administered_by"}, false},
		{"Withdrawal: meat days, milk hours", []string{"withdrawal_meat_days", "withdrawal_milk_hours"}, true},
		{"Meat clear on", []string{"meat_clear_on"}, false},
		{"Milk clear at (UTC)", []string{"milk_clear_at"}, false},
		{"Supplier", []string{"supplier_name", "supplier_address"}, false},
		{"Proof of acquisition", []string{"proof_of_acquisition"}, false},
	},
}

var bookTitles = map[string]string{
	herdbook.BookAcquisitions:   "Acquisitions (GB VMR 2013 reg. 17; EU 2019/6 Art. 108)",
	herdbook.BookAdministration: "Administration (GB VMR 2013 regs 18-19; EU 2019/6 Art. 108)",
}

// medicineBookHTML writes the inspector's book as one printable page: no script, inline
// print CSS, the acquisition section then the administration section. Like the CSV, it is
// streamed; errors before the page starts answer with the envelope.
func (h *Handler) medicineBookHTML(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	var (
		bw      *bufio.Writer
		header  []string
		section string
		rows    int
	)
	closeTable := func() {
		if section == "" {
			return
		}
		if rows == 0 {
			bw.WriteString(`</tbody></table><p class="empty">Nothing recorded in this period.</p>` + "\n")
		} else {
			bw.WriteString("</tbody></table>\n")
		}
	}
	err = h.svc.InspectorBook(r.Context(), farmID, q.Get("from"), q.Get("to"),
		[]string{herdbook.BookAcquisitions, herdbook.BookAdministration}, herdbook.BookWriter{
			Begin: func(info herdbook.BookInfo) error {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
				w.WriteHeader(http.StatusOK)
				bw = bufio.NewWriterSize(w, 32<<10)
				to := info.To
				if to == "" {
					to = "the latest record"
				}
				title := "Medicine book: " + info.FarmName
				bw.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) +
					"</title><style>" + bookCSS + "</style></head><body>\n<h1>" + html.EscapeString(title) + "</h1>\n<p class=\"meta\">Farm " +
					info.FarmID.String() + ". Records dated from " + info.From + " to " + html.EscapeString(to) + ". Printed " +
					info.Printed.UTC().Format("2006-01-02 15:04 UTC") + ". Medicine records are kept five years.</p>\n")
				return nil
			},
			Section: func(name string, hdr []string) error {
				closeTable()
				section, header, rows = name, hdr, 0
				bw.WriteString("<h2>" + html.EscapeString(bookTitles[name]) + "</h2>\n<table><thead><tr>")
				for _, c := range bookColumns[name] {
					bw.WriteString("<th>" + html.EscapeString(c.title) + "</th>")
				}
				bw.WriteString("</tr></thead><tbody>\n")
				return nil
			},
			Row: func(row []string) error {
				rows++
				bw.WriteString("<tr>")
				for _, c := range bookColumns[section] {
					var parts []string
					for _, name := range c.cells {
						if i := slices.Index(header, name); i >= 0 && i < len(row) && row[i] != "" {
							parts = append(parts, html.EscapeString(row[i]))
						}
					}
					if c.num {
						bw.WriteString(`<td class="n">`)
					} else {
						bw.WriteString("<td>")
					}
					bw.WriteString(strings.Join(parts, "<br>") + "</td>")
				}
				bw.WriteString("</tr>\n")
				if rows%200 == 0 {
					if err := bw.Flush(); err != nil {
						return err
					}
					http.NewResponseController(w).Flush()
				}
				return nil
			},
		})
	if bw == nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err != nil {
		bw.Flush()
		slog.ErrorContext(r.Context(), "medicine book page failed", "err", err)
		panic(http.ErrAbortHandler)
	}
	closeTable()
	bw.WriteString("</body></html>\n")
	bw.Flush()
}
