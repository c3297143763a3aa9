package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"

	herdbook "github.com/herdbook/herdbook"
)

// MaxBodyBytes is SPEC.md's limit of every JSON request body (10 MB); no more is read.
const MaxBodyBytes = 10 << 20

// postJSON is the graph's one transport: one operation per POST, in a JSON body of at most
// MaxBodyBytes. It stands in for gqlgen's transport.POST, which reads a body of any size,
// echoes a malformed body back in its error, and hands that error to the extensions without
// an operation context (where the entgql transactioner panics).
type postJSON struct{}

var _ graphql.Transport = postJSON{}

func (postJSON) Supports(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Header.Get("Upgrade") != "" {
		return false
	}
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mediaType == "application/json"
}

func (postJSON) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	w.Header().Set("Content-Type", "application/json")
	start := graphql.Now()
	params, err := readParams(w, r)
	if err != nil {
		status := http.StatusBadRequest
		if herdbook.ErrorCode(err) == herdbook.ETOOLARGE {
			status = http.StatusRequestEntityTooLarge
		}
		w.WriteHeader(status)
		writeResponse(w, &graphql.Response{Errors: gqlerror.List{presentError(ctx, err)}})
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	oc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		// The operation did not start: a parse, validation or limit error is the request's
		// fault (422), as gqlgen answers it.
		if errcode.GetErrorKind(errs) == errcode.KindProtocol {
			w.WriteHeader(http.StatusUnprocessableEntity)
		}
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, oc)
	resp := responses(ctx)
	if resp == nil {
		// gqlgen answers nothing when the request's context ended before the operation ran:
		// the client went away, and no one is left to answer.
		slog.Info("graphql request cancelled by the client before it ran", "err", ctx.Err())
		return
	}
	if status := answerStatus(resp); status != http.StatusOK {
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", strconv.Itoa(RetryAfterUnavailable))
		}
		w.WriteHeader(status)
	}
	writeResponse(w, resp)
}

// RetryAfterUnavailable is the Retry-After, in seconds, of an answer to an outage.
const RetryAfterUnavailable = 5

// answerStatus is the HTTP status of an executed operation's answer: 503 when a field failed
// because the database cannot be reached (the same request will work once it is back), 422
// when the answer was stopped by its byte ceiling, else 200 (field errors are in the body).
func answerStatus(resp *graphql.Response) int {
	for _, e := range resp.Errors {
		switch e.Extensions["code"] {
		case codeTable[herdbook.EUNAVAILABLE]:
			return http.StatusServiceUnavailable
		case codeAnswerTooLarge:
			return http.StatusUnprocessableEntity
		}
	}
	return http.StatusOK
}

// readParams decodes the body, reading at most MaxBodyBytes of it. Errors are EINVALID
// naming the body (or the member of the wrong type), or ETOOLARGE.
func readParams(w http.ResponseWriter, r *http.Request) (*graphql.RawParams, error) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	dec.UseNumber()
	var p graphql.RawParams
	if err := dec.Decode(&p); err != nil {
		return nil, bodyError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, bodyError(err)
		}
		return nil, invalidBody("body", "must hold one JSON object and nothing after it")
	}
	return &p, nil
}

func invalidBody(field, msg string) error {
	return herdbook.Invalid(herdbook.FieldError{Field: field, Message: msg})
}

func bodyError(err error) error {
	var (
		tooLarge *http.MaxBytesError
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, io.EOF):
		return invalidBody("body", `must be a JSON object with a "query"`)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalidBody("body", "malformed JSON: the body ends too early")
	case errors.As(err, &tooLarge):
		return herdbook.Errorf(herdbook.ETOOLARGE, "the body is larger than %d bytes", MaxBodyBytes)
	case errors.As(err, &syntax):
		return invalidBody("body", fmt.Sprintf("malformed JSON at byte %d: %s", syntax.Offset, syntax.Error()))
	case errors.As(err, &typ) && typ.Field == "" && typ.Value == "array":
		return invalidBody("body", "must be one JSON object: a batch of operations is not supported")
	case errors.As(err, &typ) && typ.Field == "":
		return invalidBody("body", "must be a JSON object")
	case errors.As(err, &typ):
		return invalidBody(typ.Field, "must be "+jsonKind(typ.Type.Kind().String()))
	}
	return invalidBody("body", "malformed JSON")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	}
	return "of another type"
}

// writeResponse writes an answer with the members encoding/json gives graphql.Response, in
// its order (errors, data, label, path, hasNext, extensions), except that data, which gqlgen
// has already written as JSON, is copied as it is: encoding/json would check and compact
// every byte of it again (6% of the server's CPU on a page of 50 records). gqlgen's answers
// always encode; if one does not, that is a bug, logged and answered as an internal error.
func writeResponse(w io.Writer, resp *graphql.Response) {
	b, err := appendResponse(make([]byte, 0, len(resp.Data)+512), resp)
	if err != nil {
		slog.Error("graphql: cannot encode the answer", "err", err)
		b = []byte(`{"errors":[{"message":"Internal error.","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}`)
	}
	if hw, ok := w.(http.ResponseWriter); ok {
		// The whole answer is known: sent with its length rather than in chunks (a header
		// set after the status line was written is simply not sent).
		hw.Header().Set("Content-Length", strconv.Itoa(len(b)))
	}
	_, _ = w.Write(b)
}

func appendResponse(b []byte, resp *graphql.Response) ([]byte, error) {
	b = append(b, '{')
	member := func(name string, v any) error {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		if raw, ok := v.(json.RawMessage); ok {
			if raw == nil {
				raw = json.RawMessage("null")
			}
			b = append(b, raw...)
			return nil
		}
		x, err := json.Marshal(v)
		b = append(b, x...)
		return err
	}
	var errs []error
	if len(resp.Errors) > 0 {
		errs = append(errs, member("errors", resp.Errors))
	}
	errs = append(errs, member("data", resp.Data))
	if resp.Label != "" {
		errs = append(errs, member("label", resp.Label))
	}
	if len(resp.Path) > 0 {
		errs = append(errs, member("path", resp.Path))
	}
	if resp.HasNext != nil {
		errs = append(errs, member("hasNext", resp.HasNext))
	}
	if len(resp.Extensions) > 0 {
		errs = append(errs, member("extensions", resp.Extensions))
	}
	return append(b, '}'), errors.Join(errs...)
}
