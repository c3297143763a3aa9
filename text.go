package herdbook

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The text rule: every string a caller supplies passes it before the service uses it, the
// same for REST, GraphQL, the OAuth server and the command line, because all of them call
// the service. It refuses
//
//   - invalid UTF-8 (PostgreSQL refuses such bytes, SQLite would store them and hand them to
//     every later reader), and
//   - control characters (Unicode Cc: U+0000 to U+001F, U+007F to U+009F). NUL in particular
//     is refused by PostgreSQL in text and, as \u0000, in jsonb; a query that carries one
//     fails as a whole. Elsewhere they are invisible junk that breaks logs, CSV exports and
//     the pages that show them.
//
// Free text (a record's or item's description, a message body, a test notification's text,
// string values inside record item metadata) may hold tab, line feed and carriage return:
// people write paragraphs there. Everything else is one line: names, tags, titles, ids,
// phone numbers, e-mail addresses, passwords, request ids, metadata keys, filter values.
//
// Validators call fieldErrors.line, fieldErrors.prose or textIn for every string of their
// input; TestTextRuleCoversEveryInput walks every service operation that takes text and fails
// when a string gets through.

// textProblem returns what is wrong with s under the text rule, or "" when nothing is.
func textProblem(s string, prose bool) string {
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			return fmt.Sprintf("must be valid UTF-8 (byte %d is not)", i)
		case prose && (r == '\t' || r == '\n' || r == '\r'):
		case unicode.IsControl(r):
			if prose {
				return fmt.Sprintf("must not contain control characters other than tab and line breaks (found U+%04X)", r)
			}
			return fmt.Sprintf("must not contain control characters such as tabs or line breaks (found U+%04X)", r)
		}
	}
	return ""
}

// TextProblem is textProblem for the request decoders (REST bodies, GraphQL arguments),
// which apply the rule to every string of a body before any handler sees it: the free-text
// rule when prose is set, the one-line rule otherwise; "" when s passes.
func TextProblem(s string, prose bool) string { return textProblem(s, prose) }

// CheckText applies the one-line text rule to a caller's string: an EINVALID naming field
// when s holds a control character or invalid UTF-8, nil otherwise. The OAuth server uses it
// for its parameters before any of them reaches a lookup.
func CheckText(field, s string) error {
	if msg := textProblem(s, false); msg != "" {
		return Invalid(FieldError{Field: field, Message: msg})
	}
	return nil
}

// line applies the one-line text rule to field, and reports whether s passed.
func (f *fieldErrors) line(field, s string) bool {
	if msg := textProblem(s, false); msg != "" {
		*f = append(*f, FieldError{Field: field, Message: msg})
		return false
	}
	return true
}

// prose applies the free-text rule (tab and line breaks allowed) to field.
func (f *fieldErrors) prose(field, s string) bool {
	if msg := textProblem(s, true); msg != "" {
		*f = append(*f, FieldError{Field: field, Message: msg})
		return false
	}
	return true
}

// maxTextFindings bounds how many problems one walk reports: a metadata document with
// thousands of bad strings needs a few examples, not an answer as large as the request.
const maxTextFindings = 10

// maxTextDepth bounds a walk's nesting; decoded JSON is far shallower in practice.
const maxTextDepth = 256

// textIn applies the text rule to every string inside v, and to every string map key, naming
// each problem by its path below field: map keys and struct fields (by their json name) join
// with dots, list elements add [i]. Strings follow the free-text rule when prose is set (the
// values inside record item metadata), the one-line rule otherwise (query filters, cursors,
// settings); keys are always one line. It serves inputs whose strings have no validator of
// their own: JSON documents and generated filter types.
func textIn(f *fieldErrors, field string, v any, prose bool) {
	w := textWalk{f: f, prose: prose, budget: maxTextFindings}
	w.walk(field, reflect.ValueOf(v), 0)
}

type textWalk struct {
	f      *fieldErrors
	prose  bool
	budget int
}

func (w *textWalk) add(field, msg string) {
	if w.budget > 0 {
		*w.f = append(*w.f, FieldError{Field: field, Message: msg})
	}
	w.budget--
}

func (w *textWalk) walk(field string, v reflect.Value, depth int) {
	if w.budget <= 0 || !v.IsValid() {
		return
	}
	if depth > maxTextDepth {
		w.add(field, "is nested too deeply")
		return
	}
	switch v.Kind() {
	case reflect.String:
		if msg := textProblem(v.String(), w.prose); msg != "" {
			w.add(field, msg)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			w.walk(field, v.Elem(), depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // bytes (ids, hashes) are not text
		}
		for i := range v.Len() {
			w.walk(field+"["+strconv.Itoa(i)+"]", v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			if msg := textProblem(k, false); msg != "" {
				w.add(field, "has a key that "+msg)
				continue
			}
			w.walk(joinField(field, k), iter.Value(), depth+1)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if !sf.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			w.walk(joinField(field, name), v.Field(i), depth+1)
		}
	}
}

func joinField(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

// checkTextIn applies the one-line text rule to every string of a structured input (birth
// settings: species, window labels and dates), naming fields by their JSON paths.
func checkTextIn(v any) error {
	var fe fieldErrors
	textIn(&fe, "", v, false)
	return fe.err()
}
