// Package herdbook is the service layer of Herdbook: domain rules, validation and
// authorization for farms, members, animals, groups and records. The GraphQL graph (graph/)
// and the REST facade (rest/) both call it; neither holds a business rule.
package herdbook

import (
	"context"

	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farmmember"
	_ "github.com/herdbook/herdbook/ent/runtime" // registers the schema's hooks and interceptors
	"github.com/herdbook/herdbook/ent/schema"
	"github.com/herdbook/herdbook/ent/schema/trail"
	"github.com/herdbook/herdbook/internal/blob"
)

// Scopes a credential may carry. A scope never grants farm membership.
const (
	ScopeReadFarms    = "read:farms"
	ScopeWriteFarms   = "write:farms"
	ScopeReadRecords  = "read:records"
	ScopeWriteRecords = "write:records"
	ScopeReadAnimals  = "read:animals"
	ScopeWriteAnimals = "write:animals"
)

// AllScopes lists every scope, in the order documentation shows them.
var AllScopes = []string{ScopeReadFarms, ScopeWriteFarms, ScopeReadRecords, ScopeWriteRecords, ScopeReadAnimals, ScopeWriteAnimals}

// Role is a member's role in a farm; OWNER is above EDITOR, which is above READER.
type Role = farmmember.Role

// The roles, highest first.
const (
	RoleOwner  = farmmember.RoleOWNER
	RoleEditor = farmmember.RoleEDITOR
	RoleReader = farmmember.RoleREADER
)

func roleRank(r Role) int {
	switch r {
	case RoleOwner:
		return 3
	case RoleEditor:
		return 2
	case RoleReader:
		return 1
	}
	return 0
}

// CredentialType tells how a request authenticated.
type CredentialType string

// Credential types.
const (
	CredentialOAuth  CredentialType = "oauth"   // a bearer access token
	CredentialAPIKey CredentialType = "api_key" // a deprecated legacy key
)

// Viewer is the authenticated caller of a request.
type Viewer struct {
	UserID     uuid.UUID
	ClientID   string // the OAuth client the token was issued to, or the key's id
	Scopes     []string
	Credential CredentialType
}

// HasScope reports whether the viewer's credential carries scope.
func (v *Viewer) HasScope(scope string) bool { return slices.Contains(v.Scopes, scope) }

type viewerKey struct{}

// WithViewer returns a context carrying the authenticated viewer.
func WithViewer(ctx context.Context, v *Viewer) context.Context {
	if v != nil {
		// The book's entries are stamped with who wrote them (ent/schema/trail).
		ctx = trail.WithActor(ctx, trail.Actor{UserID: v.UserID, ClientID: v.ClientID})
	}
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerFrom returns the viewer of ctx, or nil when the request is anonymous.
func ViewerFrom(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}

// DefaultPageCap is the largest page a list returns when take is omitted or larger.
const DefaultPageCap = 500

// Service implements Herdbook's operations over an ent client.
type Service struct {
	client  *ent.Client
	now     func() time.Time
	pageCap int
	blobs   blob.Store // file contents; set by WithBlobStore (file.go)
	// lookback is how far back the notification scheduler looks (schedule.go).
	lookback time.Duration
	// phoneRegion is where phone numbers without a country code are read (user.go).
	phoneRegion string
	// webhookPrivate lets webhook URLs name private addresses (webhook.go).
	webhookPrivate bool
	// filterSets keeps the register filters' animal sets between pages (filterset.go).
	filterSets *derivedCache
	// derived keeps whole-farm answers by the farm's change counter (derived.go).
	derived *derivedCache
	// registries configures the outbox that sends statutory notices (outbox.go).
	registries *Registries
	// citus says the database is a Citus cluster, whose sweeps lease without row locks
	// (schedule.go, WithCitus).
	citus bool
}

// Option configures a Service.
type Option func(*Service)

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithPageCap sets the largest page a list returns.
func WithPageCap(n int) Option { return func(s *Service) { s.pageCap = n } }

// New returns a Service over client.
func New(client *ent.Client, opts ...Option) *Service {
	s := &Service{client: client, now: time.Now, pageCap: DefaultPageCap, lookback: DefaultNotifyLookback, phoneRegion: DefaultPhoneRegion,
		filterSets: newDerivedCache(filterSetCacheSize),
		derived:    newDerivedCache(derivedCacheSize)}
	for _, o := range opts {
		o(s)
	}
	// Any write made with a request's context makes that request load the viewer's
	// memberships again (request.go).
	client.Use(forgetOnWrite)
	client.Intercept(nodeFarmFilter)
	return s
}

// Client returns the ent client of ctx's transaction, or the service's own. GraphQL
// mutations and REST writes run in a transaction carried by the context.
func (s *Service) Client(ctx context.Context) *ent.Client {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx.Client()
	}
	return s.client
}

// inTx runs fn in a transaction: the one ctx carries, or a new one committed when fn returns
// nil and rolled back otherwise.
func (s *Service) inTx(ctx context.Context, fn func(ctx context.Context) error) (err error) {
	if ent.TxFromContext(ctx) != nil {
		return fn(ctx)
	}
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			_ = tx.Rollback()
			panic(r)
		}
		if err != nil {
			_ = tx.Rollback()
			return
		}
		err = tx.Commit()
	}()
	return fn(ent.NewTxContext(ctx, tx))
}

func (s *Service) nowUTC() time.Time { return s.now().UTC() }

// RequireViewer answers EUNAUTHORIZED for an anonymous request. Transports call it before
// describing a malformed request, so that anonymous callers learn nothing about the routes.
func RequireViewer(ctx context.Context) error {
	if ViewerFrom(ctx) == nil {
		return Errorf(EUNAUTHORIZED, "authentication required: send Authorization: Bearer <token>")
	}
	return nil
}

// authenticate returns the viewer, checks the scope (403) and nothing else.
func authenticate(ctx context.Context, scopes ...string) (*Viewer, error) {
	if err := RequireViewer(ctx); err != nil {
		return nil, err
	}
	v := ViewerFrom(ctx)
	for _, sc := range scopes {
		if !v.HasScope(sc) {
			return nil, Errorf(EFORBIDDEN, "the credential lacks the scope %s", sc)
		}
	}
	return v, nil
}

// authorizeFarm applies the farm-scoped check order: authentication (401), scopes (403),
// an active farm with an active membership of the viewer (404), then the minimum role (401).
// It costs one query, or none once the request has loaded the viewer's memberships
// (request.go).
func (s *Service) authorizeFarm(ctx context.Context, farmID uuid.UUID, min Role, scopes ...string) (*Viewer, *ent.FarmMember, error) {
	v, err := authenticate(ctx, scopes...)
	if err != nil {
		return nil, nil, err
	}
	m, err := s.viewerMember(ctx, v, farmID)
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, nil, Errorf(ENOTFOUND, "farm %s not found", farmID)
	}
	if roleRank(m.Role) < roleRank(min) {
		return nil, nil, Errorf(EUNAUTHORIZED, "this operation needs the %s role or above; you are %s", min, m.Role)
	}
	return v, m, nil
}

// IncludeInactive returns a context in which queries also see soft-deleted rows.
func IncludeInactive(ctx context.Context) context.Context { return schema.IncludeInactive(ctx) }

// Page asks for a slice of a list: Skip rows skipped, Take rows at most (nil: the cap).
type Page struct {
	Skip int
	Take *int
}

// bounds validates p and returns offset and limit, clamping take to the cap. A limit of 0
// means an empty page: callers must not pass it to ent, where 0 means "no limit".
func (s *Service) bounds(p Page) (int, int, error) {
	var fe fieldErrors
	if p.Skip < 0 {
		fe.add("skip", "must be 0 or more")
	}
	limit := s.pageCap
	if p.Take != nil {
		switch {
		case *p.Take < 0:
			fe.add("take", "must be 0 or more")
		case *p.Take < limit:
			limit = *p.Take
		}
	}
	return p.Skip, limit, fe.err()
}

// Optional is a patch value that tells "absent" (Set false) from "null" (Set true, Value nil).
type Optional[T any] struct {
	Set   bool
	Value *T
}

// notFound turns ent's not-found into ENOTFOUND with a message naming what was missing.
func notFound(err error, what string, id uuid.UUID) error {
	if ent.IsNotFound(err) {
		return Errorf(ENOTFOUND, "%s %s not found", what, id)
	}
	return err
}

// constraint turns ent's constraint errors into ECONFLICT; others pass through.
func constraint(err error, msg string) error {
	if ent.IsConstraintError(err) {
		return Errorf(ECONFLICT, "%s", msg)
	}
	return err
}
