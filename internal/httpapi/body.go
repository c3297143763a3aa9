package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	herdbook "github.com/herdbook/herdbook"
)

// MaxJSONBody is SPEC.md's request body limit for JSON (10 MB). The OAuth endpoints apply it
// to their form bodies too.
const MaxJSONBody = 10 << 20

// ReadBody reads the whole request body, at most MaxJSONBody bytes. Its errors are the
// service's: ETOOLARGE past the limit, EINVALID for a body that stopped arriving or broke.
func ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxJSONBody)
	b, err := io.ReadAll(r.Body)
	if err != nil {
		if e := ReadError(err); e != nil {
			return nil, e
		}
		return nil, BodyInvalid("could not be read: " + err.Error())
	}
	return b, nil
}

// ReadError turns an error met while reading a request body into the service's error: a
// body over its limit is ETOOLARGE, a body that stopped arriving (see BodyDeadline) is
// EINVALID naming the body. Other errors give nil: the caller words them.
func ReadError(err error) error {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return herdbook.Errorf(herdbook.ETOOLARGE, "the body is larger than %d bytes", tooLarge.Limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return BodyInvalid("arrived too slowly: the connection sent no data for too long, or far too little")
	}
	return nil
}

// BodyInvalid is the EINVALID of a request body as a whole.
func BodyInvalid(msg string) error {
	return herdbook.Invalid(herdbook.FieldError{Field: "body", Message: msg})
}

// DecodeJSON reads one JSON object from the request body into v, strictly (see Unmarshal).
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := ReadBody(w, r)
	if err != nil {
		return err
	}
	return Unmarshal(b, v)
}

// Unmarshal decodes data, which must be one JSON value and nothing else, into v. It is
// stricter than encoding/json, because a lenient parser makes the client believe something
// was saved that was not: the body must be UTF-8 (RFC 8259), no object may name a key twice
// (encoding/json keeps the last, silently), and a field v does not know is refused instead
// of dropped. Every problem is an EINVALID naming the field by its JSON path, the way the
// client wrote it (record_items[0].name).
func Unmarshal(data []byte, v any) error {
	if !utf8.Valid(data) {
		return BodyInvalid(fmt.Sprintf("is not valid UTF-8 (at byte %d)", invalidUTF8At(data)))
	}
	if string(bytes.TrimSpace(data)) == "null" {
		// encoding/json leaves v as it is for null: the body would read as {}.
		return BodyInvalid("must be a JSON object, not null")
	}
	if path, ok := duplicateKey(data); ok {
		return herdbook.Invalid(herdbook.FieldError{Field: path, Message: "is given more than once"})
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		if err != nil {
			return decodeError(err)
		}
		return BodyInvalid("must hold a single JSON object")
	}
	return nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// duplicateKey returns the path of the first key that an object of data names twice (keys
// compared after unescaping, as the decoder sees them). It is a small scanner rather than
// json.Decoder.Token, which allocates for every token and costs several times the decoding
// itself. Malformed JSON ends the scan without a finding: the decoder that runs next reports
// it.
func duplicateKey(data []byte) (string, bool) {
	s := dupScanner{data: data}
	s.value()
	if s.found == nil {
		return "", false
	}
	return s.path(), true
}

// maxScanDepth is encoding/json's own nesting limit: deeper documents fail to decode anyway.
const maxScanDepth = 10000

// pathSeg is one step of the path to the value being scanned: an object key or a list index.
type pathSeg struct {
	key   []byte
	index int
	isKey bool
}

type dupScanner struct {
	data  []byte
	pos   int
	stack []pathSeg
	found []byte // the duplicate key, once one is found
	bad   bool   // malformed input: stop
}

func (s *dupScanner) stop() bool { return s.bad || s.found != nil }

func (s *dupScanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value scans one JSON value at the current position.
func (s *dupScanner) value() {
	s.space()
	if s.pos >= len(s.data) || len(s.stack) > maxScanDepth {
		s.bad = true
		return
	}
	switch s.data[s.pos] {
	case '{':
		s.object()
	case '[':
		s.array()
	case '"':
		s.str()
	default: // a number, true, false or null: up to the next delimiter
		for ; s.pos < len(s.data); s.pos++ {
			switch s.data[s.pos] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return
			}
		}
	}
}

func (s *dupScanner) object() {
	s.pos++ // {
	var keys [][]byte
	var seen map[string]struct{} // once the object has many keys
	for !s.stop() {
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == '}' {
			s.pos++
			return
		}
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			s.bad = true
			return
		}
		key := s.str()
		if s.bad {
			return
		}
		if seen == nil && len(keys) < 16 {
			for _, k := range keys {
				if bytes.Equal(k, key) {
					s.found = key
					return
				}
			}
			keys = append(keys, key)
		} else {
			if seen == nil {
				seen = make(map[string]struct{}, 2*len(keys))
				for _, k := range keys {
					seen[string(k)] = struct{}{}
				}
			}
			if _, dup := seen[string(key)]; dup {
				s.found = key
				return
			}
			seen[string(key)] = struct{}{}
		}
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			s.bad = true
			return
		}
		s.pos++
		s.stack = append(s.stack, pathSeg{key: key, isKey: true})
		s.value()
		if s.stop() {
			return
		}
		s.stack = s.stack[:len(s.stack)-1]
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == ',' {
			s.pos++
		}
	}
}

func (s *dupScanner) array() {
	s.pos++ // [
	for i := 0; !s.stop(); i++ {
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			s.pos++
			return
		}
		s.stack = append(s.stack, pathSeg{index: i})
		s.value()
		if s.stop() {
			return
		}
		s.stack = s.stack[:len(s.stack)-1]
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == ',' {
			s.pos++
		}
	}
}

// str scans a string and returns its content: the raw bytes when it has no escapes (no
// copy), else the unescaped text.
func (s *dupScanner) str() []byte {
	start := s.pos + 1
	escaped := false
	for i := start; i < len(s.data); i++ {
		switch s.data[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			s.pos = i + 1
			if !escaped {
				return s.data[start:i]
			}
			var out string
			if err := json.Unmarshal(s.data[start-1:i+1], &out); err != nil {
				s.bad = true
				return nil
			}
			return []byte(out)
		}
	}
	s.bad = true
	return nil
}

// path renders where the duplicate was found, the way the client wrote it.
func (s *dupScanner) path() string {
	var b strings.Builder
	for _, seg := range s.stack {
		if seg.isKey {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(seg.key)
		} else {
			b.WriteString("[" + strconv.Itoa(seg.index) + "]")
		}
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.Write(s.found)
	return b.String()
}

func decodeError(err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
		herr   *herdbook.Error
	)
	switch {
	case errors.Is(err, io.EOF):
		return BodyInvalid("a JSON object is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return BodyInvalid("malformed JSON: the body ends too early")
	case errors.As(err, &syntax):
		return BodyInvalid(fmt.Sprintf("malformed JSON at byte %d", syntax.Offset))
	case errors.As(err, &herr):
		return herr // a value's UnmarshalJSON named the problem itself
	case errors.As(err, &typ):
		if typ.Field == "" {
			return BodyInvalid("must be a JSON object")
		}
		return herdbook.Invalid(herdbook.FieldError{Field: typ.Field, Message: "must be " + jsonKind(typ.Type.Kind().String())})
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return herdbook.Invalid(herdbook.FieldError{Field: name, Message: "is not a known field"})
	default:
		return BodyInvalid("malformed JSON")
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "int", "int64", "int32", "float64":
		return "a number"
	}
	return "of another type"
}
