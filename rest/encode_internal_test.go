package rest

import (
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// benchRecords is a page of 50 records of two items (with fact-like metadata) and one file.
func benchRecords() []*ent.Record {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	desc := "a description"
	out := make([]*ent.Record, 50)
	for i := range out {
		r := &ent.Record{ID: uuid.New(), CreatedAt: now, UpdatedAt: now, IsActive: true, FarmID: uuid.New(), Type: "HEALTH", Name: "Record", Description: &desc, AppliedAt: now}
		for j := 0; j < 2; j++ {
			name := "item"
			r.Edges.Items = append(r.Edges.Items, &ent.RecordItem{ID: uuid.New(), CreatedAt: now, UpdatedAt: now, IsActive: true, Name: &name,
				Metadata: metadataOf(map[string]any{"birth_history": map[string]any{"kind": "membership", "animal_id": uuid.NewString(), "group_id": uuid.NewString(), "from": "2024-01-01"}, "dose_ml": 5.5})})
		}
		r.Edges.Files = []*ent.File{{ID: uuid.New(), CreatedAt: now, UpdatedAt: now, IsActive: true, Name: "photo.jpg", MimeType: "image/jpeg", Size: 1000}}
		out[i] = r
	}
	return out
}

// metadataOf is m as a stored item's metadata.
func metadataOf(m map[string]any) schematype.Metadata {
	md, err := schematype.MetadataOf(m)
	if err != nil {
		panic(err)
	}
	return md
}

// reflectPage is the records answer as encoding/json writes it: the reference the lean
// writer must match byte for byte.
func reflectPage(h *Handler, records []*ent.Record, total int, cursor string) []byte {
	w := httptest.NewRecorder()
	out := make([]recordJSON, len(records))
	for i, rec := range records {
		out[i] = h.newRecordReadJSON(rec)
	}
	httpapi.WriteJSON(w, 200, map[string]any{"total": total, "records": out, "next_cursor": cursor})
	return w.Body.Bytes()
}

func TestRecordPageWriterMatchesEncodingJSON(t *testing.T) {
	h := &Handler{cfg: Config{BaseURL: "http://example.test/"}}
	records := benchRecords()
	odd := "quote\\" + `"` + " <b>&amp; \\u2028:\u2028 \u2029 nl\\n\n tab\t cr\r bell\x07 bs\b ff\f del\x7f bad\xff\xfe é 😀 \u0000"
	records[0].Name = odd
	records[0].Description = nil
	records[0].Edges.Items[0].Metadata = nil
	records[0].Edges.Items[0].Name = nil
	records[0].Edges.Items[1].Metadata = metadataOf(map[string]any{"note": odd, "n": 1.5e300, "list": []any{odd, nil, true}})
	records[0].Edges.Items[1].CreatedAt = time.Date(2026, 3, 1, 8, 0, 0, 123456789, time.FixedZone("x", 3600))
	records[1].Edges.Items, records[1].Edges.Files = nil, nil
	records[2].Edges.Files[0].Name = odd
	for _, recs := range [][]*ent.Record{records, {}, nil} {
		want := reflectPage(h, recs, 12345, "cur\\`"+"sor")
		w := httptest.NewRecorder()
		h.writeRecordPage(w, recs, 12345, "cur\\`"+"sor")
		if got := w.Body.Bytes(); string(got) != string(want) {
			t.Fatalf("lean writer differs from encoding/json:\n got %s\nwant %s", got, want)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Fatalf("content type %q", ct)
		}
	}
}

// BenchmarkRecordPageEncoding measures the REST encoding of a page of 50 records alone:
// by reflection over recordJSON values (the old way) and by the lean writer.
func BenchmarkRecordPageEncoding(b *testing.B) {
	h := &Handler{cfg: Config{BaseURL: "http://example.test"}}
	records := benchRecords()
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = reflectPage(h, records, 1000, "x")
		}
	})
	b.Run("lean", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			w := httptest.NewRecorder()
			h.writeRecordPage(w, records, 1000, "x")
			_, _ = io.Copy(io.Discard, w.Body)
		}
	})
}
