package httpapi_test

import (
	"strconv"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

type item struct {
	Name     string         `json:"name"`
	Metadata map[string]any `json:"metadata"`
}

type dose struct {
	Unit string  `json:"unit"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max,omitempty"`
	Days *int    `json:"days"`
}

type body struct {
	Name  string   `json:"name"`
	Tags  []string `json:"tags"`
	Items []item   `json:"record_items"`
	Note  *string  `json:"note" text:"prose"`
	Doses []dose   `json:"doses"`
	Count int      `json:"count,omitempty"`
}

func TestUnmarshal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		want     string // "" for success, else "field: message" of the first problem
	}{
		{"OK", `{"name":"a","tags":["x","x"],"record_items":[{"name":"b","metadata":{"k":{"k":1}}}]}`, ""},
		{"OKSameKeyInSiblingObjects", `{"record_items":[{"name":"a"},{"name":"b"}]}`, ""},
		{"OKSameKeyAtDifferentDepths", `{"name":"a","record_items":[{"name":"b","metadata":{"name":"c"}}]}`, ""},
		{"ErrDuplicateTopLevel", `{"name":"a","name":"b"}`, "name: is given more than once"},
		{"ErrDuplicateAfterNested", `{"record_items":[{"name":"a"}],"tags":[],"record_items":[]}`, "record_items: is given more than once"},
		{"ErrDuplicateInArrayElement", `{"record_items":[{"name":"a"},{"name":"b","name":"c"}]}`, "record_items[1].name: is given more than once"},
		{"ErrDuplicateInMetadata", `{"record_items":[{"metadata":{"birth_history":{"kind":"birth","kind":"profile"}}}]}`, "record_items[0].metadata.birth_history.kind: is given more than once"},
		{"ErrDuplicateEscapedSpelling", `{"name":"a","n\u0061me":"b"}`, "name: is given more than once"},
		{"ErrDuplicateInLargeObject", `{"record_items":[{"metadata":{` + manyKeys(40) + `,"k3":true}}]}`, "record_items[0].metadata.k3: is given more than once"},
		{"OKLargeObject", `{"record_items":[{"metadata":{` + manyKeys(40) + `}}]}`, ""},
		{"ErrInvalidUTF8", "{\"name\":\"a\xffb\"}", "body: is not valid UTF-8 (at byte 10)"},
		{"ErrUnknownField", `{"colour":"red"}`, "colour: is not a known field"},
		{"ErrWrongType", `{"name":1}`, "name: must be a string"},
		{"ErrNotAnObject", `[]`, "body: must be a JSON object"},
		{"ErrTrailing", `{} {}`, "body: must hold a single JSON object"},
		{"ErrEmpty", ``, "body: a JSON object is required"},
		{"ErrTruncated", `{"name":`, "body: malformed JSON: the body ends too early"},
		{"ErrMalformed", `{"name" "a"}`, "body: malformed JSON at byte 9"},
		// issue 33: nested objects are read as strictly as the top level
		{"OKNested", `{"doses":[{"unit":"ml","min":0,"days":null}],"note":"a\n\tb"}`, ""},
		{"ErrNestedUnknown", `{"doses":[{"unit":"ml","min":1,"bogus":1}]}`, "doses[0].bogus: is not a known field"},
		{"ErrNestedNumberMissing", `{"doses":[{"unit":"ml"}]}`, "doses[0].min: is required"},
		{"ErrNestedNull", `{"doses":[null]}`, "doses[0]: must not be null"},
		{"ErrNumberNull", `{"doses":[{"unit":"ml","min":null}]}`, "doses[0].min: must not be null"},
		{"ErrNestedWrongType", `{"doses":[{"unit":1,"min":1}]}`, "doses[0].unit: must be a string"},
		{"ErrNotInteger", `{"doses":[{"unit":"ml","min":1,"days":1.5}]}`, "doses[0].days: must be an integer"},
		{"ErrNestedNUL", `{"doses":[{"unit":"ml\u0000","min":1}]}`, "doses[0].unit: must not contain control characters such as tabs or line breaks (found U+0000)"},
		{"ErrLineTab", `{"name":"a\tb"}`, "name: must not contain control characters such as tabs or line breaks (found U+0009)"},
		{"ErrRawDEL", "{\"name\":\"a\x7fb\"}", "name: must not contain control characters such as tabs or line breaks (found U+007F)"},
		{"ErrRawC1", "{\"tags\":[\"a\u0085\"]}", "tags[0]: must not contain control characters such as tabs or line breaks (found U+0085)"},
		{"ErrProseEscape", `{"note":"a\u001bb"}`, "note: must not contain control characters other than tab and line breaks (found U+001B)"},
		{"ErrMetadataDeep", `{"record_items":[{"metadata":{"a":[{"b":"\u0007"}]}}]}`, "record_items[0].metadata.a[0].b: must not contain control characters such as tabs or line breaks (found U+0007)"},
		{"ErrMetadataKey", `{"record_items":[{"metadata":{"a\u0000":1}}]}`, "record_items[0].metadata: has a key that must not contain control characters such as tabs or line breaks (found U+0000)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b body
			err := httpapi.Unmarshal([]byte(tc.in), &b)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			if herdbook.ErrorCode(err) != herdbook.EINVALID {
				t.Fatalf("error %v, want EINVALID", err)
			}
			f := herdbook.ErrorFields(err)[0]
			if got := f.Field + ": " + f.Message; got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func manyKeys(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = `"k` + strconv.Itoa(i) + `":[1,{"k":"v"}]`
	}
	return strings.Join(keys, ",")
}

// BenchmarkUnmarshal measures what the duplicate-key walk costs on a large body.
func BenchmarkUnmarshal(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"name":"a","record_items":[`)
	for i := range 5000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"name":"item","metadata":{"birth_history":{"kind":"birth","dam_id":"x","date":"2026-01-01"}}}`)
	}
	sb.WriteString(`]}`)
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var v body
		if err := httpapi.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}
