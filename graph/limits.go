package graph

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/internal/tracing"
)

// Limits of one GraphQL document and operation (the body's is MaxBodyBytes). Each bounds
// the work one request can cause before any resolver runs; docs/api.md lists them with the
// error each gives.
const (
	// MaxDocumentBytes bounds the query text, checked before it is parsed.
	MaxDocumentBytes = 64 << 10
	// MaxTokens bounds the lexical tokens of the query text; the parser stops at it.
	MaxTokens = 10_000
	// MaxFields bounds the fields of the whole document (every operation and fragment
	// definition) with each fragment spread counted as the fields it brings, so that nothing
	// that expands fragments can be made to do exponential work.
	MaxFields = 5_000
	// MaxSelectionFields bounds the fields at one place of the answer: a selection set with
	// the fragments and inline fragments spread into it, and the selections of the fields
	// with its response names merged (aliases count apart). gqlgen collects the fields of
	// every object it resolves in time that grows with the square of this number.
	MaxSelectionFields = 100
	// MaxMergeWork bounds the comparisons the validation rule OverlappingFieldsCanBeMerged
	// makes: fields that share a response name at one place are compared in pairs, and so
	// are fragment spreads side by side. Distinct fields cost nothing here.
	MaxMergeWork = 10_000
	// MaxDepth bounds how deep data fields nest (introspection has its own bound).
	MaxDepth = 12
	// MaxComplexity bounds the cost of an operation: a field costs 1, and what is selected
	// inside a list costs once per element it may have: first or last of a connection
	// (DefaultPageSize when both are left out), the number of ids of nodes(ids:), the cap
	// the service enforces for lists it caps (listBounds: a record's items count
	// herdbook.MaxRecordItems), or DefaultListSize for other lists. A page of 50 records
	// with every field of their items and files fits (about 180,000).
	MaxComplexity = 250_000
	// DefaultMaxAnswerBytes is the default ceiling on the bytes of one answer's data
	// (NewHandler's Options.MaxAnswerBytes): resolution stops when the values resolved so
	// far would pass it, and the answer is one error instead.
	DefaultMaxAnswerBytes = 16 << 20
	// DefaultPageSize is what a connection returns when neither first nor last is given,
	// and what the cost counts then.
	DefaultPageSize = herdbook.MaxConnectionPage
	// DefaultListSize is what the cost counts for a list that takes no page size.
	DefaultListSize = 10
	// MaxIntrospectionDepth bounds how deep fields under __schema and __type nest; they do
	// not count against MaxDepth, so that tools' full introspection query (15 deep) works.
	MaxIntrospectionDepth = 30
	// MaxIntrospectionComplexity bounds the cost of the fields under __schema and __type,
	// whose lists count as the schema's average sizes (its number of types, the average
	// number of fields of a type, …). The full introspection query costs about half.
	MaxIntrospectionComplexity = 650_000
)

// limitError is the answer to a document refused by a limit: a GraphQL request error (HTTP
// 422, like a parse or validation error) with extensions.limit naming the limit.
func limitError(code, limit, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, code)
	err.Extensions["limit"] = limit
	return err
}

// documentSize refuses a query text longer than MaxDocumentBytes. It runs before the
// automatic persisted query extension, so that no long text is ever stored in its cache.
type documentSize struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentSize{}

func (documentSize) ExtensionName() string                   { return "DocumentSize" }
func (documentSize) Validate(graphql.ExecutableSchema) error { return nil }

func (documentSize) MutateOperationParameters(_ context.Context, p *graphql.RawParams) *gqlerror.Error {
	if len(p.Query) > MaxDocumentBytes {
		return limitError(errcode.ParseFailed, "documentBytes", "the document is %d bytes; at most %d are allowed", len(p.Query), MaxDocumentBytes)
	}
	return nil
}

// documentShape checks a document before gqlgen parses and validates it: it parses the text
// itself with the token limit and refuses fragment cycles, documents with more than
// MaxFields fields once fragments are expanded or more than MaxSelectionFields at one place,
// and documents that would make validation compare more than MaxMergeWork pairs. Every
// check is linear in the document: fragments are measured once each and their size is
// reused at every spread.
type documentShape struct {
	// validated is gqlgen's cache of documents that passed validation, and so these checks.
	validated graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentShape{}

func (documentShape) ExtensionName() string                   { return "DocumentShape" }
func (documentShape) Validate(graphql.ExecutableSchema) error { return nil }

func (d documentShape) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if _, ok := d.validated.Get(ctx, p.Query); ok {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, MaxTokens)
	if err != nil {
		var gqlErr *gqlerror.Error
		if !errors.As(err, &gqlErr) {
			gqlErr = gqlerror.Wrap(err)
		}
		errcode.Set(gqlErr, errcode.ParseFailed)
		return gqlErr
	}
	return checkShape(doc)
}

func checkShape(doc *ast.QueryDocument) *gqlerror.Error {
	s := shape{frags: make(map[string]*ast.FragmentDefinition, len(doc.Fragments)), sizes: map[string]int{}}
	for _, f := range doc.Fragments {
		if _, dup := s.frags[f.Name]; !dup { // a second definition is a validation error
			s.frags[f.Name] = f
		}
	}
	fields := 0
	for _, op := range doc.Operations {
		fields = satAdd(fields, s.size(op.SelectionSet))
	}
	for _, f := range doc.Fragments {
		fields = satAdd(fields, s.size(f.SelectionSet))
	}
	if s.cycle != "" {
		return limitError(errcode.ValidationFailed, "fragmentCycle", "fragment %s spreads itself", s.cycle)
	}
	if fields > MaxFields {
		return limitError(errcode.ValidationFailed, "fields", "the document has more than %d fields once its fragments are expanded", MaxFields)
	}
	work := 0
	for _, op := range doc.Operations {
		w, _ := s.merge([]ast.SelectionSet{op.SelectionSet})
		work = satAdd(work, w)
	}
	for _, f := range doc.Fragments {
		w, _ := s.merge([]ast.SelectionSet{f.SelectionSet})
		work = satAdd(work, w)
	}
	if s.widest > MaxSelectionFields {
		return limitError(errcode.ValidationFailed, "selectionFields", "a selection has %d fields once its fragments are spread in; at most %d are allowed", s.widest, MaxSelectionFields)
	}
	if work > MaxMergeWork {
		return limitError(errcode.ValidationFailed, "mergeWork", "the document repeats response names or fragment spreads too often: more than %d comparisons to validate it", MaxMergeWork)
	}
	return nil
}

// shape measures an unvalidated document.
type shape struct {
	frags  map[string]*ast.FragmentDefinition
	sizes  map[string]int // fields of each fragment, expanded; -1 while it is being measured
	cycle  string         // a fragment found spreading itself
	widest int            // the most fields merge found at one place
}

// size counts the fields of set with every spread expanded; each fragment is counted once.
func (s *shape) size(set ast.SelectionSet) int {
	n := 0
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			n = satAdd(n, satAdd(1, s.size(sel.SelectionSet)))
		case *ast.InlineFragment:
			n = satAdd(n, s.size(sel.SelectionSet))
		case *ast.FragmentSpread:
			n = satAdd(n, s.fragmentSize(sel.Name))
		}
	}
	return n
}

func (s *shape) fragmentSize(name string) int {
	if n, ok := s.sizes[name]; ok {
		if n < 0 {
			s.cycle = name
			return 0
		}
		return n
	}
	f := s.frags[name]
	if f == nil {
		return 0 // an unknown fragment is a validation error
	}
	s.sizes[name] = -1
	n := s.size(f.SelectionSet)
	s.sizes[name] = n
	return n
}

// merge estimates the comparisons OverlappingFieldsCanBeMerged makes for the selection sets
// that merge into one place of the answer, and returns them with the number of fields found
// there (the widest place is kept in widest). Fields sharing a response name are compared
// in pairs, each pair also collecting both fields' sub-selections; spreads side by side in
// one selection set are compared in pairs too. It walks the expanded document, so it runs
// only after size is within MaxFields and no fragment spreads itself.
func (s *shape) merge(sets []ast.SelectionSet) (work, fields int) {
	var names []string
	groups := map[string][]ast.SelectionSet{}
	var collect func(set ast.SelectionSet)
	collect = func(set ast.SelectionSet) {
		spreads := 0
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				name := sel.Alias
				if name == "" {
					name = sel.Name
				}
				if _, ok := groups[name]; !ok {
					names = append(names, name)
				}
				groups[name] = append(groups[name], sel.SelectionSet)
				fields++
			case *ast.InlineFragment:
				collect(sel.SelectionSet)
			case *ast.FragmentSpread:
				spreads++
				if f := s.frags[sel.Name]; f != nil {
					collect(f.SelectionSet)
				}
			}
		}
		work = satAdd(work, spreads*(spreads-1)/2)
	}
	for _, set := range sets {
		collect(set)
	}
	s.widest = max(s.widest, fields)
	for _, name := range names {
		subs := groups[name]
		subWork, subFields := s.merge(subs)
		n := len(subs)
		work = satAdd(work, satAdd(subWork, (n-1)*(n/2+subFields)))
		if work > MaxMergeWork {
			break
		}
	}
	return work, fields
}

// operationLimits measures the validated operation, with its variables, before it runs:
// depth and cost of its data fields, and of its introspection fields apart. Each fragment
// is measured once per kind of place it is spread in.
type operationLimits struct {
	// introLists is what a list under __schema or __type counts, by field name.
	introLists map[string]int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = operationLimits{}

func (operationLimits) ExtensionName() string                   { return "OperationLimits" }
func (operationLimits) Validate(graphql.ExecutableSchema) error { return nil }

// newOperationLimits derives the introspection list sizes from the schema: the number of
// types and directives, and the average length of each list a type, field or directive has.
func newOperationLimits(s *ast.Schema) operationLimits {
	avg := func(sum, n int) int {
		if n == 0 {
			return 1
		}
		return max(1, (sum+n-1)/n)
	}
	var fields, fielded, inputs, inputTypes, enums, enumTypes, ifaces, abstract, possible, args, withArgs int
	for _, t := range s.Types {
		switch t.Kind {
		case ast.Object, ast.Interface:
			fields += len(t.Fields)
			fielded++
			ifaces += len(t.Interfaces)
			for _, f := range t.Fields {
				args += len(f.Arguments)
				withArgs++
			}
			if t.Kind == ast.Interface {
				possible += len(s.PossibleTypes[t.Name])
				abstract++
			}
		case ast.Union:
			possible += len(s.PossibleTypes[t.Name])
			abstract++
		case ast.InputObject:
			inputs += len(t.Fields)
			inputTypes++
		case ast.Enum:
			enums += len(t.EnumValues)
			enumTypes++
		}
	}
	for _, d := range s.Directives {
		args += len(d.Arguments)
		withArgs++
	}
	return operationLimits{introLists: map[string]int{
		"types":         max(1, len(s.Types)),
		"directives":    max(1, len(s.Directives)),
		"fields":        avg(fields, fielded),
		"interfaces":    avg(ifaces, fielded),
		"possibleTypes": avg(possible, abstract),
		"inputFields":   avg(inputs, inputTypes),
		"enumValues":    avg(enums, enumTypes),
		"args":          avg(args, withArgs),
	}}
}

func (l operationLimits) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	m := measurer{introLists: l.introLists, vars: oc.Variables, memo: map[memoKey]measure{}}
	r := m.selectionSet(oc.Operation.SelectionSet, noPage, false)
	switch {
	case r.depth > MaxDepth:
		return limitError(errcode.ValidationFailed, "depth", "the operation is %d fields deep; at most %d are allowed", r.depth, MaxDepth)
	case r.cost > MaxComplexity:
		return limitError(errcode.ValidationFailed, "complexity", "the operation costs %s; at most %d is allowed (lists count once per element: pass first or last)", costString(r.cost), MaxComplexity)
	case r.introDepth > MaxIntrospectionDepth:
		return limitError(errcode.ValidationFailed, "introspectionDepth", "the introspection is %d fields deep; at most %d are allowed", r.introDepth, MaxIntrospectionDepth)
	case r.introCost > MaxIntrospectionComplexity:
		return limitError(errcode.ValidationFailed, "introspectionComplexity", "the introspection costs %s; at most %d is allowed", costString(r.introCost), MaxIntrospectionComplexity)
	}
	return nil
}

// noPage is the page size of a place that is not inside a connection.
const noPage = -1

// measure is the depth and cost of a selection, for data and introspection fields apart.
type measure struct{ depth, cost, introDepth, introCost int }

func (m *measure) add(o measure) {
	m.depth = max(m.depth, o.depth)
	m.cost = satAdd(m.cost, o.cost)
	m.introDepth = max(m.introDepth, o.introDepth)
	m.introCost = satAdd(m.introCost, o.introCost)
}

type memoKey struct {
	fragment string
	page     int
	intro    bool
}

// measurer measures one validated operation with its variables.
type measurer struct {
	introLists map[string]int
	vars       map[string]any
	memo       map[memoKey]measure
}

// selectionSet measures set, found inside a connection of page elements (or noPage), under
// __schema or __type when intro is set (then depth and cost are the introspection's).
func (m *measurer) selectionSet(set ast.SelectionSet, page int, intro bool) measure {
	var r measure
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			r.add(m.field(sel, page, intro))
		case *ast.InlineFragment:
			r.add(m.selectionSet(sel.SelectionSet, page, intro))
		case *ast.FragmentSpread:
			if sel.Definition == nil {
				continue
			}
			key := memoKey{sel.Name, page, intro}
			f, ok := m.memo[key]
			if !ok {
				f = m.selectionSet(sel.Definition.SelectionSet, page, intro)
				m.memo[key] = f
			}
			r.add(f)
		}
	}
	return r
}

func (m *measurer) field(f *ast.Field, page int, intro bool) measure {
	if !intro && (f.Name == "__schema" || f.Name == "__type") {
		in := m.selectionSet(f.SelectionSet, noPage, true)
		return measure{introDepth: 1 + in.depth, introCost: satAdd(1, in.cost)}
	}
	n := m.listSize(f, page, intro)
	sub := m.selectionSet(f.SelectionSet, m.pageOf(f, intro), intro)
	return measure{
		depth:      1 + sub.depth,
		cost:       satAdd(1, satMul(n, sub.cost)),
		introDepth: sub.introDepth,
		introCost:  satMul(n, sub.introCost),
	}
}

// listSize is how many elements the value of f counts for: 1 unless it is a list.
func (m *measurer) listSize(f *ast.Field, page int, intro bool) int {
	if f.Definition == nil || f.Definition.Type.Elem == nil {
		return 1
	}
	switch {
	case intro:
		if n, ok := m.introLists[f.Name]; ok {
			return n
		}
	case page != noPage: // the edges (or nodes) of a connection
		return page
	default:
		if ids := f.Arguments.ForName("ids"); ids != nil {
			return min(m.listLen(ids.Value), herdbook.MaxConnectionPage)
		}
		if f.ObjectDefinition != nil {
			if n, ok := listBounds[f.ObjectDefinition.Name+"."+f.Name]; ok {
				return n
			}
		}
	}
	return DefaultListSize
}

// listBounds are the unpaged lists whose length the service caps on write, counted by their
// cap: the cost of a record's items is then what the largest record's would be.
var listBounds = map[string]int{
	"Record.items": herdbook.MaxRecordItems,
}

// pageOf is the page size of f when it is a connection (it takes first or last), else noPage.
func (m *measurer) pageOf(f *ast.Field, intro bool) int {
	if intro || f.Definition == nil ||
		(f.Definition.Arguments.ForName("first") == nil && f.Definition.Arguments.ForName("last") == nil) {
		return noPage
	}
	for _, name := range []string{"first", "last"} {
		if a := f.Arguments.ForName(name); a != nil {
			if n, ok := m.intValue(a.Value); ok {
				// The service refuses pages outside these bounds, naming the argument.
				return min(max(n, 0), herdbook.MaxConnectionPage)
			}
		}
	}
	return DefaultPageSize
}

func (m *measurer) resolve(v *ast.Value) any {
	if v.Kind == ast.Variable {
		if val, ok := m.vars[v.Raw]; ok {
			return val
		}
		if v.VariableDefinition != nil && v.VariableDefinition.DefaultValue != nil {
			return m.resolve(v.VariableDefinition.DefaultValue)
		}
		return nil
	}
	if v.Kind == ast.IntValue {
		return json.Number(v.Raw)
	}
	return nil
}

func (m *measurer) intValue(v *ast.Value) (int, bool) {
	switch n := m.resolve(v).(type) {
	case int:
		return n, true
	case int64:
		return int(max(min(n, math.MaxInt32), math.MinInt32)), true
	case float64:
		return int(max(min(n, math.MaxInt32), math.MinInt32)), true
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(max(min(i, math.MaxInt32), math.MinInt32)), true
		}
		return math.MaxInt32, true // too large for an Int; validation has refused it anyway
	}
	return 0, false
}

func (m *measurer) listLen(v *ast.Value) int {
	if v.Kind == ast.ListValue {
		return len(v.Children)
	}
	if list, ok := m.resolve(v).([]any); ok {
		return len(list)
	}
	return 1
}

// costCap keeps sums and products of costs far from overflow; any cost at it is refused.
const costCap = 1 << 40

func satAdd(a, b int) int { return min(a+b, costCap) }

func satMul(a, b int) int {
	if a != 0 && b > costCap/a {
		return costCap
	}
	return min(a*b, costCap)
}

func costString(c int) string {
	if c >= costCap {
		return "more than 10^12"
	}
	return strconv.Itoa(c)
}

// answerBudget counts the bytes of one operation's answer as its fields resolve: each field
// its name, and each value its length as JSON (a string its bytes and quotes, a record
// item's metadata its stored compact JSON). Fields resolve into memory before any byte is
// written, so the count stops an answer before it is built: once it passes max, no further
// field resolves (none loads more rows) and the answer is one answerBytes error.
type answerBudget struct {
	max  int64
	used atomic.Int64
	over atomic.Bool
}

type answerBudgetKey struct{}

// errAnswerStopped is what the fields that would pass the ceiling, and every field after
// them, resolve to; the answer replaces them all by the budget's one error.
var errAnswerStopped = herdbook.Errorf(herdbook.ETOOLARGE, "the answer is too large")

// answerCeiling gives each operation its budget of max bytes and answers one that passes it
// with the answerBytes error alone (data null; in a mutation, the transaction rolls back
// because fields failed).
func answerCeiling(max int64) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		b := &answerBudget{max: max}
		h := next(context.WithValue(ctx, answerBudgetKey{}, b))
		return func(ctx context.Context) *graphql.Response {
			resp := h(ctx)
			if resp != nil && b.over.Load() {
				return &graphql.Response{Errors: gqlerror.List{limitError(codeAnswerTooLarge, "answerBytes",
					"the answer would be larger than %d bytes; ask for fewer elements (first or last) or fewer fields", b.max)}}
			}
			return resp
		}
	}
}

// rawJSON is an answer's value already written as JSON.
type rawJSON []byte

func (r rawJSON) MarshalGQL(w io.Writer) { _, _ = w.Write(r) }

// codeAnswerTooLarge is the extensions.code of an answer stopped by its byte ceiling.
const codeAnswerTooLarge = "ANSWER_TOO_LARGE"

// onePassPages counts the pages the one-pass writers answered (tests read it).
var onePassPages atomic.Int64

// countAnswer is the field middleware that charges each resolved field to the budget.
func countAnswer(ctx context.Context, next graphql.Resolver) (any, error) {
	b, _ := ctx.Value(answerBudgetKey{}).(*answerBudget)
	if b == nil {
		return next(ctx)
	}
	if b.over.Load() {
		return nil, errAnswerStopped
	}
	res, err := next(ctx)
	fc := graphql.GetFieldContext(ctx)
	if res != nil && err == nil && !slowRecordsPage.Load() && fc != nil && !tracing.On() {
		// A records page (fastpage.go) and an animals page (fastanimals.go) are written in one
		// pass, charged as they are written.
		var (
			page        []byte
			ok, stopped bool
		)
		switch conn := res.(type) {
		case *ent.RecordConnection:
			page, ok, stopped = recordsPage(ctx, fc, conn, b)
		case *ent.AnimalConnection:
			page, ok, stopped = animalsPage(ctx, fc, conn, b)
		}
		if stopped {
			b.over.Store(true)
			return nil, errAnswerStopped
		}
		if ok {
			if b.used.Add(int64(4+len(fc.Field.Alias)+len(page))) > b.max {
				b.over.Store(true)
				return nil, errAnswerStopped
			}
			onePassPages.Add(1)
			return rawJSON(page), nil
		}
	}
	n := int64(4) + valueBytes(res) // "name": and a comma
	if fc != nil {
		n += int64(len(fc.Field.Alias))
	}
	if b.used.Add(n) > b.max {
		b.over.Store(true)
		return nil, errAnswerStopped
	}
	return res, err
}

// valueBytes is about the length of v as JSON: exact for strings without characters to
// escape, numbers and metadata; objects count their braces here and their fields as they
// resolve.
func valueBytes(v any) int64 {
	switch v := v.(type) {
	case nil:
		return 4
	case string:
		return int64(len(v)) + 2
	case *string:
		if v == nil {
			return 4
		}
		return int64(len(*v)) + 2
	case schematype.Metadata:
		return int64(max(len(v), 4))
	case json.RawMessage:
		return int64(max(len(v), 4))
	case []byte:
		return int64(len(v))*4/3 + 4
	case bool:
		return 5
	case int, int32, int64, float64, uint, uint64:
		return 20
	case time.Time, *time.Time:
		return 32
	case uuid.UUID:
		return 38
	case map[string]any:
		b, _ := json.Marshal(v)
		return int64(len(b))
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		n := int64(2)
		for i := range rv.Len() {
			e := rv.Index(i)
			switch e.Kind() {
			case reflect.Pointer, reflect.Struct, reflect.Interface, reflect.Map:
				n += 3 // braces and comma; the element's fields count as they resolve
			default:
				n += 1 + valueBytes(e.Interface())
			}
		}
		return n
	}
	return 2
}
