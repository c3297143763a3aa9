//go:build ignore

// entc.go drives ent and entgql code generation; `go generate ./...` runs it.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"sort"
	"strings"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
	entschema "entgo.io/ent/schema"
	"github.com/vektah/gqlparser/v2/ast"
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithSchemaGenerator(),
		entgql.WithWhereInputs(true),
		entgql.WithConfigPath("../gqlgen.yml"),
		entgql.WithSchemaPath("../graph/ent.graphqls"),
		entgql.WithSchemaHook(describe),
	)
	if err != nil {
		log.Fatalf("creating entgql extension: %v", err)
	}
	cfg := &gen.Config{
		Features: []gen.Feature{
			gen.FeatureVersionedMigration,
			gen.FeatureIntercept,
			gen.FeatureLock,
			gen.FeatureUpsert,
			gen.FeatureExecQuery,
		},
	}
	if err := entc.Generate("./schema", cfg, entc.Extensions(ex)); err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
}

// enumValues describes the values of the ent enums the graph shows. A new value without a
// description here fails the generation, so the schema never has an undescribed value.
var enumValues = map[string]map[string]string{
	"FarmSpecies": {
		"BISON": "Bison.", "CATTLE": "Cattle.", "ELK": "Elk.", "GOAT": "Goats.", "HORSE": "Horses.",
		"SHEEP": "Sheep.", "OTHER": "Another species, named in speciesOther.",
	},
	"FarmMemberRole": {
		"OWNER":  "Everything, including members, roles and deleting the farm.",
		"EDITOR": "Reads and writes the farm's animals, groups, records and files.",
		"READER": "Reads the farm.",
	},
	"RecordType": {
		"OTHER": "Anything else.", "FEED": "Feeding.", "GENETIC": "Breeding and genetics, such as profile, exposure and birth facts.",
		"HEALTH": "Health and treatment.", "MOVEMENT": "Arrivals and departures.",
	},
	"NotificationStatus": {
		"FAILED": "Every delivery attempt failed.", "PENDING": "Not delivered yet; tried again at nextAttemptAt.",
		"SENT": "Delivered.",
	},
	"NotificationType": {"EMAIL": "By email.", "IN_APP": "In the app only.", "SMS": "By text message."},
	"TaskStatus":       {"TODO": "Still to do.", "DONE": "Done.", "CANCELLED": "Will not be done."},
}

// predicateSuffixes say what each where-input predicate does, longest suffix first.
var predicateSuffixes = []struct{ suffix, text string }{
	{"ContainsFold", "contains the value, ignoring case"},
	{"EqualFold", "equals the value, ignoring case"},
	{"HasPrefix", "starts with the value"},
	{"HasSuffix", "ends with the value"},
	{"Contains", "contains the value"},
	{"NotNil", "is set (when true)"},
	{"IsNil", "is null (when true)"},
	{"NotIn", "is none of the values"},
	{"NEQ", "differs from the value"},
	{"GTE", "is at least the value"},
	{"LTE", "is at most the value"},
	{"GT", "is greater than the value"},
	{"LT", "is less than the value"},
	{"In", "is one of the values"},
	{"", "equals the value"},
}

// describe fills the descriptions entgql leaves out, so that every type, field, argument and
// enum value of the graph is described: types from the ent schema's Comment annotation,
// where-input predicates and order fields from their names, enum values from enumValues, and
// gqlgen's directives. A field that is still undescribed afterwards fails the generation:
// give its ent field or edge a Comment.
func describe(g *gen.Graph, s *ast.Schema) error {
	for _, t := range g.Nodes {
		name := t.Name
		if ant, ok := t.Annotations[entgql.Annotation{}.Name()]; ok {
			var a entgql.Annotation
			if b, err := json.Marshal(ant); err == nil && json.Unmarshal(b, &a) == nil && a.Type != "" {
				name = a.Type
			}
		}
		def := s.Types[name]
		if def == nil {
			continue
		}
		if def.Description == "" {
			var c entschema.CommentAnnotation
			if b, err := json.Marshal(t.Annotations[c.Name()]); err == nil {
				_ = json.Unmarshal(b, &c)
			}
			def.Description = c.Text
		}
		if w := s.Types[name+"WhereInput"]; w != nil {
			bases := []string{"id"}
			for _, f := range t.Fields {
				bases = append(bases, camel(f.Name))
			}
			describePredicates(w, bases)
		}
	}
	if q := s.Types["Query"]; q != nil && q.Description == "" {
		q.Description = "Everything a client can read. Every field checks the caller's scopes and farm roles, as REST does."
	}
	var missing []string
	for _, def := range s.Types {
		switch {
		case def.Kind == ast.Enum && strings.HasSuffix(def.Name, "OrderField"):
			for _, v := range def.EnumValues {
				if v.Description == "" {
					v.Description = "Orders by " + strings.ToLower(v.Name) + "."
				}
			}
		case def.Kind == ast.Enum:
			for _, v := range def.EnumValues {
				if v.Description == "" {
					v.Description = enumValues[def.Name][v.Name]
				}
			}
		}
		if def.Description == "" {
			missing = append(missing, def.Name)
		}
		for _, f := range def.Fields {
			if f.Description == "" {
				missing = append(missing, def.Name+"."+f.Name)
			}
			for _, a := range f.Arguments {
				if a.Description == "" {
					missing = append(missing, def.Name+"."+f.Name+"("+a.Name+")")
				}
			}
		}
		for _, v := range def.EnumValues {
			if v.Description == "" {
				missing = append(missing, def.Name+"."+v.Name)
			}
		}
	}
	describeDirectives(s)
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("undescribed in the graph (give the ent field or edge a Comment, or the schema a schema.Comment): %s", strings.Join(missing, ", "))
	}
	return nil
}

// describePredicates describes each field of a where input by the field it tests and how.
func describePredicates(w *ast.Definition, bases []string) {
	sort.Slice(bases, func(i, j int) bool { return len(bases[i]) > len(bases[j]) })
	for _, f := range w.Fields {
		switch {
		case f.Name == "not":
			f.Description = "Matches what the given filter does not match."
			continue
		case f.Name == "and":
			f.Description = "Matches what every given filter matches."
			continue
		case f.Name == "or":
			f.Description = "Matches what any given filter matches."
			continue
		case strings.HasPrefix(f.Name, "has") && strings.HasSuffix(f.Name, "With"):
			f.Description = "Matches when some of the " + strings.TrimSuffix(strings.TrimPrefix(f.Name, "has"), "With") + " edge match every given filter."
			continue
		case strings.HasPrefix(f.Name, "has") && len(f.Name) > 3 && f.Name[3] >= 'A' && f.Name[3] <= 'Z':
			f.Description = "Matches when the " + f.Name[3:] + " edge has at least one object (true) or none (false)."
			continue
		}
	field:
		for _, b := range bases {
			if !strings.HasPrefix(f.Name, b) {
				continue
			}
			for _, p := range predicateSuffixes {
				if f.Name == b+p.suffix {
					f.Description = b + " " + p.text + "."
					break field
				}
			}
		}
	}
}

// describeDirectives describes gqlgen's code-generation directives that ent.graphqls declares.
func describeDirectives(s *ast.Schema) {
	texts := map[string]string{
		"goField":       "Code generation only: how gqlgen binds the field to Go.",
		"goModel":       "Code generation only: the Go type gqlgen binds the type to.",
		"forceResolver": "Resolve the field with a resolver method.",
		"name":          "The Go field's name.",
		"omittable":     "Tell an input field left out from one set to null.",
		"model":         "The Go type.",
		"models":        "The Go types.",
		"forceGenerate": "Generate the Go type even though it is bound.",
	}
	for _, name := range []string{"goField", "goModel"} {
		d := s.Directives[name]
		if d == nil {
			continue
		}
		if d.Description == "" {
			d.Description = texts[name]
		}
		for _, a := range d.Arguments {
			if a.Description == "" {
				a.Description = texts[a.Name]
			}
		}
	}
}

// camel turns an ent field name (snake case) into its GraphQL name, as entgql does.
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		switch p := parts[i]; p {
		case "id":
			parts[i] = "ID"
		default:
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}
