package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
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
// was saved that was not. Before anything is decoded, one pass over the body, directed by
// v's type at every depth (nested objects and list elements too, and the values behind
// nullable wrappers, which encoding/json would decode loosely), checks that
//
//   - the body is UTF-8 (RFC 8259) and no object names a key twice (encoding/json keeps the
//     last, silently);
//   - every key of an object is a field of its type: an unknown key is refused, not dropped;
//   - every number field of a nested object that is neither a pointer nor omitempty is given
//     (a missing dose.min would otherwise read as 0), and null stands only where the type has
//     room for it (a pointer, a nullable, a list, a map): [null] is not a list of zeros;
//   - every value has its field's JSON type, integers are integers;
//   - every string, at any depth, and every key of a free-form object passes the service's
//     text rule (herdbook.TextProblem): no control characters, and tab and line breaks only
//     in the fields tagged text:"prose" (descriptions, reasons, record item metadata).
//
// Every problem is an EINVALID naming the field by its JSON path, the way the client wrote
// it (species_withdrawals[0].dose.unit); up to ten are reported at once. Because the rule
// sits where bodies are decoded, a new field cannot miss it.
func Unmarshal(data []byte, v any) error {
	if !utf8.Valid(data) {
		return BodyInvalid(fmt.Sprintf("is not valid UTF-8 (at byte %d)", invalidUTF8At(data)))
	}
	if string(bytes.TrimSpace(data)) == "null" {
		// encoding/json leaves v as it is for null: the body would read as {}.
		return BodyInvalid("must be a JSON object, not null")
	}
	if fe := Check(data, reflect.TypeOf(v)); len(fe) > 0 {
		return herdbook.Invalid(fe...)
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

// Check runs Unmarshal's checks of data against type t (see Unmarshal) and returns what it
// found; nil when the body is malformed JSON, which the decoder reports in its own words.
func Check(data []byte, t reflect.Type) []herdbook.FieldError {
	sh, null := shapeOf(t)
	s := scanner{data: data}
	s.value(sh, null, false)
	if s.bad {
		return nil
	}
	return s.found
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

// Shaper is implemented by wrapper types that decode themselves (the REST facade's
// nullable): JSONShape returns a nil pointer to the type that stands for them in a body, so
// that Unmarshal's checks look through the wrapper. Null is allowed where a wrapper stands.
type Shaper interface{ JSONShape() any }

var (
	shaperType      = reflect.TypeFor[Shaper]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

type shapeKind uint8

const (
	anyShape    shapeKind = iota // a free-form value (map[string]any, or a type that decodes itself)
	objectShape                  // a struct: known fields only
	mapShape
	listShape
	stringShape
	intShape
	floatShape
	boolShape
)

// shape is what a body may hold where a Go type stands.
type shape struct {
	kind     shapeKind
	fields   map[string]*fieldShape // objectShape
	required []string               // objectShape: the fields that must be given, in order
	elem     *shape                 // mapShape, listShape
	elemNull bool                   // null allowed for an element
}

type fieldShape struct {
	shape *shape
	null  bool // null allowed
	prose bool // strings below follow the free-text rule
}

var shapes sync.Map // reflect.Type -> *shapeEntry

type shapeEntry struct {
	once  sync.Once
	shape *shape
	null  bool
}

// shapeOf returns the shape of t and whether null may stand for it.
func shapeOf(t reflect.Type) (*shape, bool) {
	if t == nil {
		return &shape{kind: anyShape}, true
	}
	e, _ := shapes.LoadOrStore(t, &shapeEntry{})
	entry := e.(*shapeEntry)
	entry.once.Do(func() {
		entry.shape = &shape{} // a recursive type meets this placeholder, filled in place
		sh, null := buildShape(t)
		*entry.shape = *sh
		entry.null = null
	})
	return entry.shape, entry.null
}

func buildShape(t reflect.Type) (*shape, bool) {
	if t.Implements(shaperType) || reflect.PointerTo(t).Implements(shaperType) {
		inner := reflect.New(t).Interface().(Shaper).JSONShape()
		sh, _ := shapeOf(reflect.TypeOf(inner))
		return sh, true
	}
	if t.Kind() == reflect.Pointer {
		sh, _ := shapeOf(t.Elem())
		return sh, true
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return &shape{kind: anyShape}, true
	}
	switch t.Kind() {
	case reflect.Interface:
		return &shape{kind: anyShape}, true
	case reflect.String:
		return &shape{kind: stringShape}, false
	case reflect.Bool:
		return &shape{kind: boolShape}, false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &shape{kind: intShape}, false
	case reflect.Float32, reflect.Float64:
		return &shape{kind: floatShape}, false
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &shape{kind: stringShape}, true // bytes travel as base64
		}
		elem, null := shapeOf(t.Elem())
		return &shape{kind: listShape, elem: elem, elemNull: null}, t.Kind() == reflect.Slice
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return &shape{kind: anyShape}, true
		}
		elem, null := shapeOf(t.Elem())
		return &shape{kind: mapShape, elem: elem, elemNull: null}, true
	case reflect.Struct:
		sh := &shape{kind: objectShape, fields: map[string]*fieldShape{}}
		addFields(sh, t)
		return sh, false
	}
	return &shape{kind: anyShape}, true
}

// addFields adds t's fields to sh as encoding/json sees them: by their json name, embedded
// structs without a name flattened.
func addFields(sh *shape, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(sh, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs, null := shapeOf(f.Type)
		sh.fields[name] = &fieldShape{shape: fs, null: null, prose: f.Tag.Get("text") == "prose"}
		omitempty := strings.Contains(","+opts+",", ",omitempty,")
		if (fs.kind == intShape || fs.kind == floatShape) && !null && !omitempty {
			sh.required = append(sh.required, name)
		}
	}
}

// maxScanDepth is encoding/json's own nesting limit: deeper documents fail to decode anyway.
const maxScanDepth = 10000

// maxFindings bounds how many problems one body reports.
const maxFindings = 10

// pathSeg is one step of the path to the value being scanned: an object key or a list index.
type pathSeg struct {
	key   []byte
	index int
	isKey bool
}

// scanner walks a body once, by hand rather than with json.Decoder.Token, which allocates
// for every token and costs several times the decoding itself. Malformed JSON ends the scan
// (bad): the decoder that runs next reports it.
type scanner struct {
	data  []byte
	pos   int
	stack []pathSeg
	found []herdbook.FieldError
	bad   bool
}

func (s *scanner) stop() bool { return s.bad || len(s.found) >= maxFindings }

func (s *scanner) add(last []byte, msg string) {
	if len(s.stack) == 0 && last == nil && msg == "must be an object" {
		msg = "must be a JSON object"
	}
	if len(s.found) < maxFindings {
		s.found = append(s.found, herdbook.FieldError{Field: s.path(last), Message: msg})
	}
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// kindWord names what a shape wants, for "must be ...".
func kindWord(k shapeKind) string {
	switch k {
	case objectShape, mapShape:
		return "an object"
	case listShape:
		return "an array"
	case stringShape:
		return "a string"
	case intShape:
		return "an integer"
	case floatShape:
		return "a number"
	case boolShape:
		return "a boolean"
	}
	return "a JSON value"
}

// value scans one JSON value at the current position, which should be of shape sh (null
// allowed when null is set; strings follow the free-text rule when prose is set).
func (s *scanner) value(sh *shape, null, prose bool) {
	s.space()
	if s.pos >= len(s.data) || len(s.stack) > maxScanDepth {
		s.bad = true
		return
	}
	c := s.data[s.pos]
	switch c {
	case '{':
		switch sh.kind {
		case objectShape, mapShape, anyShape:
			s.object(sh, prose)
			return
		}
	case '[':
		if sh.kind == listShape || sh.kind == anyShape {
			s.array(sh, prose)
			return
		}
	case '"':
		str := s.str()
		if s.bad {
			return
		}
		if sh.kind == stringShape || sh.kind == anyShape {
			if str.suspect {
				if msg := herdbook.TextProblem(string(str.text), prose); msg != "" {
					s.add(nil, msg)
				}
			}
			return
		}
		s.add(nil, "must be "+kindWord(sh.kind))
		return
	}
	// a number, true, false or null: up to the next delimiter
	start := s.pos
	for ; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			goto end
		}
	}
end:
	tok := s.data[start:s.pos]
	switch {
	case c == '{' || c == '[':
		// an object or array where sh wants a scalar: skip it whole
		s.pos = start
		s.skip()
		s.add(nil, "must be "+kindWord(sh.kind))
	case string(tok) == "null":
		if !null {
			s.add(nil, "must not be null")
		}
	case string(tok) == "true" || string(tok) == "false":
		if sh.kind != boolShape && sh.kind != anyShape {
			s.add(nil, "must be "+kindWord(sh.kind))
		}
	case c == '-' || (c >= '0' && c <= '9'):
		switch sh.kind {
		case floatShape, anyShape:
		case intShape:
			if bytes.ContainsAny(tok, ".eE") {
				s.add(nil, "must be an integer")
			}
		default:
			s.add(nil, "must be "+kindWord(sh.kind))
		}
	default:
		s.bad = true
	}
}

// skip passes over one value without judging it.
func (s *scanner) skip() {
	free := &shape{kind: anyShape}
	n := len(s.found)
	s.value(free, true, true)
	s.found = s.found[:n]
}

func (s *scanner) object(sh *shape, prose bool) {
	s.pos++ // {
	var keys [][]byte
	var seen map[string]struct{} // once the object has many keys
	for !s.stop() {
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == '}' {
			s.pos++
			break
		}
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			s.bad = true
			return
		}
		k := s.str()
		if s.bad {
			return
		}
		key := k.text
		dup := false
		if seen == nil && len(keys) < 16 {
			for _, o := range keys {
				if bytes.Equal(o, key) {
					dup = true
				}
			}
			keys = append(keys, key)
		} else {
			if seen == nil {
				seen = make(map[string]struct{}, 2*len(keys))
				for _, o := range keys {
					seen[string(o)] = struct{}{}
				}
			}
			_, dup = seen[string(key)]
			seen[string(key)] = struct{}{}
		}
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			s.bad = true
			return
		}
		s.pos++
		var (
			vs         = sh
			vnull      = true
			vprose     = prose
			knownKey   = true
			keyProblem string
		)
		switch sh.kind {
		case objectShape:
			f, ok := sh.fields[string(key)]
			if ok {
				vs, vnull, vprose = f.shape, f.null, prose || f.prose
			} else {
				knownKey = false
			}
		case mapShape:
			vs, vnull = sh.elem, sh.elemNull
			if k.suspect {
				keyProblem = herdbook.TextProblem(string(key), false)
			}
		default: // anyShape
			if k.suspect {
				keyProblem = herdbook.TextProblem(string(key), false)
			}
		}
		switch {
		case dup:
			s.add(key, "is given more than once")
		case !knownKey:
			s.add(key, "is not a known field")
		case keyProblem != "":
			s.add(nil, "has a key that "+keyProblem)
		}
		s.stack = append(s.stack, pathSeg{key: key, isKey: true})
		if knownKey {
			s.value(vs, vnull, vprose)
		} else {
			s.skip()
		}
		if s.bad {
			return
		}
		s.stack = s.stack[:len(s.stack)-1]
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == ',' {
			s.pos++
		}
	}
	if sh.kind == objectShape && !s.stop() {
		for _, name := range sh.required {
			given := false
			for _, k := range keys {
				if string(k) == name {
					given = true
					break
				}
			}
			if !given && seen != nil {
				_, given = seen[name]
			}
			if !given {
				s.add([]byte(name), "is required")
			}
		}
	}
}

func (s *scanner) array(sh *shape, prose bool) {
	s.pos++ // [
	elem, null := sh.elem, sh.elemNull
	if sh.kind == anyShape {
		elem, null = sh, true
	}
	for i := 0; !s.stop(); i++ {
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			s.pos++
			return
		}
		s.stack = append(s.stack, pathSeg{index: i})
		s.value(elem, null, prose)
		if s.bad {
			return
		}
		s.stack = s.stack[:len(s.stack)-1]
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == ',' {
			s.pos++
		}
	}
}

// scanned is a string's content: the raw bytes when it has no escapes (no copy), else the
// unescaped text. suspect is set when it may hold a control character (an escape, DEL, or
// a C1 character's lead byte), so that only those strings are looked at closely.
type scanned struct {
	text    []byte
	suspect bool
}

func (s *scanner) str() scanned {
	start := s.pos + 1
	escaped, suspect := false, false
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '\\':
			escaped = true
			i++
		case c == '"':
			s.pos = i + 1
			if !escaped {
				return scanned{text: s.data[start:i], suspect: suspect}
			}
			var out string
			if err := json.Unmarshal(s.data[start-1:i+1], &out); err != nil {
				s.bad = true
				return scanned{}
			}
			return scanned{text: []byte(out), suspect: true}
		case c < 0x20:
			s.bad = true // raw control characters are not JSON: the decoder says so
			return scanned{}
		case c == 0x7f || c == 0xc2:
			suspect = true
		}
	}
	s.bad = true
	return scanned{}
}

// path renders where a problem was found, the way the client wrote it; last, when given,
// is a key below the current position.
func (s *scanner) path(last []byte) string {
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
	if last != nil {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(last)
	}
	if b.Len() == 0 {
		return "body"
	}
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
