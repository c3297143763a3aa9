package rest

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/schematype"
)

// The records list is the API's hottest answer: 50 records, 100 items and their files
// per page. It is written here field by field into one pooled buffer, as encoding/json
// would write recordJSON (same keys, order, escaping and time format), instead of
// building recordJSON values and encoding them by reflection: a page of 50 records took
// 2,370 allocations and 175 KB to encode that way (BenchmarkRecordPageEncoding).

var pagePool = sync.Pool{New: func() any { return &pageWriter{buf: bytes.NewBuffer(make([]byte, 0, 64<<10))} }}

// pageWriter writes one answer.
type pageWriter struct {
	buf *bytes.Buffer
	b   []byte // scratch for appends
}

// writeRecordPage answers a records list: {"next_cursor", "records", "total"}, the keys in
// the order encoding/json gives a map's.
func (h *Handler) writeRecordPage(w http.ResponseWriter, records []*ent.Record, total int, cursor string) {
	p := pagePool.Get().(*pageWriter)
	defer func() {
		if p.buf.Cap() <= 4<<20 { // a huge page's buffer is not kept
			p.buf.Reset()
			pagePool.Put(p)
		}
	}()
	p.raw(`{"next_cursor":`)
	p.str(cursor)
	p.raw(`,"records":[`)
	base := trimSlash(h.cfg.BaseURL)
	for i, r := range records {
		if i > 0 {
			p.raw(",")
		}
		p.record(r, base)
	}
	p.raw(`],"total":`)
	p.b = strconv.AppendInt(p.b[:0], int64(total), 10)
	p.buf.Write(p.b)
	p.raw("}\n")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(p.buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(p.buf.Bytes())
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// record writes newRecordReadJSON(r).
func (p *pageWriter) record(r *ent.Record, base string) {
	p.raw(`{"type":`)
	p.str(string(r.Type))
	p.raw(`,"id":`)
	p.str(r.ID.String())
	p.raw(`,"created_at":`)
	p.time(r.CreatedAt)
	p.raw(`,"updated_at":`)
	p.time(r.UpdatedAt)
	p.raw(`,"name":`)
	p.str(r.Name)
	p.raw(`,"is_active":`)
	p.bool(r.IsActive)
	p.raw(`,"description":`)
	p.strPtr(r.Description)
	p.raw(`,"applied_at":`)
	p.time(r.AppliedAt)
	if r.AcknowledgeWithdrawal {
		p.raw(`,"acknowledge_withdrawal":true`)
	}
	p.raw(`,"record_items":[`)
	for i, it := range r.Edges.Items {
		if i > 0 {
			p.raw(",")
		}
		p.raw(`{"id":`)
		p.str(it.ID.String())
		p.raw(`,"description":`)
		p.strPtr(it.Description)
		p.raw(`,"is_active":`)
		p.bool(it.IsActive)
		p.raw(`,"metadata":`)
		p.metadata(it.Metadata)
		p.raw(`,"name":`)
		p.strPtr(it.Name)
		p.raw(`,"created_at":`)
		p.time(it.CreatedAt)
		p.raw(`,"updated_at":`)
		p.time(it.UpdatedAt)
		p.raw("}")
	}
	p.raw(`],"files":[`)
	for i, f := range r.Edges.Files {
		if i > 0 {
			p.raw(",")
		}
		id := f.ID.String()
		p.raw(`{"id":`)
		p.str(id)
		p.raw(`,"created_at":`)
		p.time(f.CreatedAt)
		p.raw(`,"updated_at":`)
		p.time(f.UpdatedAt)
		p.raw(`,"name":`)
		p.str(f.Name)
		p.raw(`,"is_active":`)
		p.bool(f.IsActive)
		p.raw(`,"mime_type":`)
		p.str(f.MimeType)
		p.raw(`,"size":`)
		p.b = strconv.AppendInt(p.b[:0], f.Size, 10)
		p.buf.Write(p.b)
		p.raw(`,"url":`)
		p.str(base + "/v1/file/" + id + "/content")
		p.raw("}")
	}
	p.raw("]}")
}

func (p *pageWriter) raw(s string) { p.buf.WriteString(s) }

func (p *pageWriter) bool(v bool) {
	if v {
		p.raw("true")
	} else {
		p.raw("false")
	}
}

// time writes t in UTC as time.Time's MarshalJSON does (RFC 3339 with nanoseconds).
func (p *pageWriter) time(t time.Time) {
	p.b = append(p.b[:0], '"')
	p.b = t.UTC().AppendFormat(p.b, time.RFC3339Nano)
	p.b = append(p.b, '"')
	p.buf.Write(p.b)
}

func (p *pageWriter) strPtr(s *string) {
	if s == nil {
		p.raw("null")
		return
	}
	p.str(*s)
}

// metadata writes an item's metadata, compact JSON text already (absent is null).
func (p *pageWriter) metadata(m schematype.Metadata) {
	b, _ := m.MarshalJSON()
	p.buf.Write(b)
}

const hexDigits = "0123456789abcdef"

// str writes s as a JSON string, escaped as encoding/json does with HTML escaping off:
// quotes, backslashes and control characters, U+2028 and U+2029; invalid UTF-8 becomes
// U+FFFD.
func (p *pageWriter) str(s string) {
	b := append(p.b[:0], '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	b = append(b, '"')
	p.b = b
	p.buf.Write(b)
}
