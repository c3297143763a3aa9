package graph

import (
	"context"
	"reflect"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	herdbook "github.com/herdbook/herdbook"
)

// proseFields are the input fields that hold free text, where tab and line breaks are part
// of what people write (a record's description, a correction's reason, a message's body, a
// purchase's supplier address, the strings inside an item's metadata): the same fields the
// REST facade tags text:"prose"; and a registry's herd list (Farm.reconciliation's herdList),
// a file's text of one animal a line. Every other string is one line.
var proseFields = map[string]bool{"description": true, "reason": true, "body": true, "supplierAddress": true, "metadata": true,
	"herdList": true, "sessionFile": true}

// maxArgFindings bounds how many problems one field's arguments report.
const maxArgFindings = 10

// textRule applies the service's text rule (herdbook.TextProblem) to every string of every
// field's arguments at any depth, after gqlgen has decoded them and before the resolver
// runs: a control character anywhere, in an input object, a list or a Map value, is
// BAD_USER_INPUT naming its path (input.speciesWithdrawals[0].dose.unit), the same rule and
// the same kind of path as the REST decoder's. A new argument cannot miss it.
func textRule(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || len(fc.Args) == 0 {
		return next(ctx)
	}
	w := argWalk{}
	for name, v := range fc.Args {
		w.walk(name, reflect.ValueOf(v), proseFields[name], 0)
	}
	if len(w.found) > 0 {
		return nil, herdbook.Invalid(w.found...)
	}
	return next(ctx)
}

type argWalk struct{ found []herdbook.FieldError }

var omittable = reflect.TypeFor[interface{ IsSet() bool }]()

func (w *argWalk) add(field, msg string) {
	if len(w.found) < maxArgFindings {
		w.found = append(w.found, herdbook.FieldError{Field: field, Message: msg})
	}
}

func (w *argWalk) walk(path string, v reflect.Value, prose bool, depth int) {
	if !v.IsValid() || len(w.found) >= maxArgFindings || depth > 64 {
		return
	}
	if v.Kind() == reflect.Struct && v.Type().Implements(omittable) && strings.HasPrefix(v.Type().Name(), "Omittable[") {
		w.walk(path, v.MethodByName("Value").Call(nil)[0], prose, depth+1)
		return
	}
	switch v.Kind() {
	case reflect.String:
		if msg := herdbook.TextProblem(v.String(), prose); msg != "" {
			w.add(path, msg)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			w.walk(path, v.Elem(), prose, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // ids and bytes are not text
		}
		for i := range v.Len() {
			w.walk(path+"["+strconv.Itoa(i)+"]", v.Index(i), prose, depth+1)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			if msg := herdbook.TextProblem(k, false); msg != "" {
				w.add(path, "has a key that "+msg)
				continue
			}
			w.walk(path+"."+k, iter.Value(), prose, depth+1)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name[:1]) + f.Name[1:]
			}
			w.walk(path+"."+name, v.Field(i), prose || proseFields[name], depth+1)
		}
	}
}
