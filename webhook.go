package herdbook

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/track"
	"github.com/herdbook/herdbook/ent/webhookdelivery"
	"github.com/herdbook/herdbook/ent/webhookendpoint"
)

// WebhookEventTypes lists the event types an endpoint may subscribe to: KIND.CHANGE for the
// kinds farm, record, animal, task, notification and file and the changes created, updated
// and deleted. (Tasks and notifications are never deleted, so task.deleted and
// notification.deleted never fire; they are accepted so that a client may subscribe to
// every change of a kind.) notice.state_changed tells of a statutory notice whose state
// changed (docs/registry.md).
var WebhookEventTypes = append(track.EventTypes(), NoticeEventType)

// Limits of an endpoint.
const (
	MaxWebhookURL         = 2000
	MaxWebhookDescription = 500
	// MaxWebhooksPerFarm keeps one farm from fanning every change out to a crowd.
	MaxWebhooksPerFarm = 20
	// WebhookSecretPrefix starts every secret (Standard Webhooks).
	WebhookSecretPrefix = "whsec_"
)

// WithWebhookPrivateAddresses lets endpoints name loopback and private addresses; without
// it an endpoint URL whose host is such an address is refused (the delivery worker
// refuses to connect to them too, whatever the name resolves to).
func WithWebhookPrivateAddresses(allow bool) Option {
	return func(s *Service) { s.webhookPrivate = allow }
}

// PrivateAddress reports whether a is an address webhooks must not reach unless the
// operator allows it: loopback, private, link-local (cloud metadata services live there),
// shared (carrier-grade NAT), unspecified or multicast.
func PrivateAddress(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(a) || netip.MustParsePrefix("0.0.0.0/8").Contains(a)
}

// ValidateWebhookURL checks an endpoint URL: absolute http or https, a host, no user
// information (it would be logged) and no fragment; a literal private address only when
// allowPrivate. Names are checked when the worker connects.
func ValidateWebhookURL(field, raw string, allowPrivate bool) error {
	bad := func(msg string) error { return Invalid(FieldError{Field: field, Message: msg}) }
	if err := CheckText(field, raw); err != nil {
		return err
	}
	if raw == "" || len(raw) > MaxWebhookURL {
		return bad(fmt.Sprintf("must be an http or https URL of at most %d characters", MaxWebhookURL))
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Opaque != "":
		return bad("must be an absolute http or https URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("must use http or https")
	case u.Hostname() == "":
		return bad("must name a host")
	case u.User != nil:
		return bad("must not carry a user name or password; authenticate the request by its signature")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return bad("must not have a fragment")
	}
	if a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !allowPrivate && PrivateAddress(a) {
		return bad("must not point to a loopback, private or link-local address")
	}
	if strings.EqualFold(u.Hostname(), "localhost") && !allowPrivate {
		return bad("must not point to a loopback, private or link-local address")
	}
	return nil
}

// NewWebhookSecret returns a new signing secret: whsec_ and 32 random bytes in base64.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// WebhookInput creates an endpoint. Enabled nil means enabled.
type WebhookInput struct {
	URL         string
	EventTypes  []string
	Description *string
	Enabled     *bool
}

// WebhookPatch changes an endpoint; nil fields stay as they are.
type WebhookPatch struct {
	URL         *string
	EventTypes  []string // nil: keep
	Description Optional[string]
	Enabled     *bool
}

// scopesFor returns the read scopes a credential needs to receive the event types: the
// payloads carry records, tasks, notifications and files (read:records) and animals
// (read:animals), so subscribing must not reveal more than the credential may read.
func scopesFor(types []string) []string {
	out := []string{}
	for _, t := range types {
		var sc string
		switch strings.SplitN(t, ".", 2)[0] {
		case "record", "task", "notification", "file", "notice":
			sc = ScopeReadRecords
		case "animal":
			sc = ScopeReadAnimals
		}
		if sc != "" && !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out
}

func validateEventTypes(fe *fieldErrors, types []string) []string {
	if len(types) == 0 {
		fe.add("event_types", "must name at least one event type, e.g. record.created")
		return nil
	}
	out := make([]string, 0, len(types))
	for i, t := range types {
		if !slices.Contains(WebhookEventTypes, t) {
			fe.add(fmt.Sprintf("event_types[%d]", i), "must be KIND.CHANGE with KIND one of farm, record, animal, task, notification, file and CHANGE one of created, updated, deleted")
			continue
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

func validateWebhookDescription(fe *fieldErrors, d *string) {
	if d != nil && !fe.prose("description", *d) {
		return
	}
	if d != nil && utf8.RuneCountInString(*d) > MaxWebhookDescription {
		fe.add("description", "must be at most %d characters", MaxWebhookDescription)
	}
}

// authorizeWebhooks applies the farm check order for webhook management: only an OWNER
// manages where the farm's data goes.
func (s *Service) authorizeWebhooks(ctx context.Context, farmID uuid.UUID, write bool) (*Viewer, error) {
	scope := ScopeReadFarms
	if write {
		scope = ScopeWriteFarms
	}
	v, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, scope)
	return v, err
}

func checkEventScopes(v *Viewer, types []string) error {
	for _, sc := range scopesFor(types) {
		if !v.HasScope(sc) {
			return Errorf(EFORBIDDEN, "the credential lacks the scope %s, which the chosen event types deliver", sc)
		}
	}
	return nil
}

// Webhooks lists a farm's endpoints, oldest first; only OWNERs see them.
func (s *Service) Webhooks(ctx context.Context, farmID uuid.UUID, p Page) ([]*ent.WebhookEndpoint, int, error) {
	if _, err := s.authorizeWebhooks(ctx, farmID, false); err != nil {
		return nil, 0, err
	}
	skip, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	q := s.Client(ctx).WebhookEndpoint.Query().Where(webhookendpoint.FarmID(farmID))
	total, err := q.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.WebhookEndpoint{}, total, err
	}
	eps, err := q.Order(ent.Asc(webhookendpoint.FieldCreatedAt), ent.Asc(webhookendpoint.FieldID)).
		Offset(skip).Limit(limit).All(ctx)
	return eps, total, err
}

// Webhook returns one endpoint of a farm.
func (s *Service) Webhook(ctx context.Context, farmID, id uuid.UUID) (*ent.WebhookEndpoint, error) {
	if _, err := s.authorizeWebhooks(ctx, farmID, false); err != nil {
		return nil, err
	}
	return s.webhook(ctx, farmID, id)
}

func (s *Service) webhook(ctx context.Context, farmID, id uuid.UUID) (*ent.WebhookEndpoint, error) {
	ep, err := s.Client(ctx).WebhookEndpoint.Query().
		Where(webhookendpoint.FarmID(farmID), webhookendpoint.ID(id)).Only(ctx)
	return ep, notFound(err, "webhook", id)
}

// CreateWebhook registers an endpoint for the farm and returns it with its secret, which is
// shown this once.
func (s *Service) CreateWebhook(ctx context.Context, farmID uuid.UUID, in WebhookInput) (*ent.WebhookEndpoint, string, error) {
	v, err := s.authorizeWebhooks(ctx, farmID, true)
	if err != nil {
		return nil, "", err
	}
	var fe fieldErrors
	if err := ValidateWebhookURL("url", in.URL, s.webhookPrivate); err != nil {
		fe = append(fe, ErrorFields(err)...)
	}
	types := validateEventTypes(&fe, in.EventTypes)
	validateWebhookDescription(&fe, in.Description)
	if err := fe.err(); err != nil {
		return nil, "", err
	}
	if err := checkEventScopes(v, types); err != nil {
		return nil, "", err
	}
	secret := NewWebhookSecret()
	var ep *ent.WebhookEndpoint
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		n, err := c.WebhookEndpoint.Query().Where(webhookendpoint.FarmID(farmID)).Count(ctx)
		if err != nil {
			return err
		}
		if n >= MaxWebhooksPerFarm {
			return Errorf(ECONFLICT, "a farm may have at most %d webhooks; delete one first", MaxWebhooksPerFarm)
		}
		enabled := in.Enabled == nil || *in.Enabled
		ep, err = c.WebhookEndpoint.Create().SetFarmID(farmID).SetURL(in.URL).SetEventTypes(types).
			SetNillableDescription(in.Description).SetSecret(secret).SetEnabled(enabled).SetCreatedBy(v.UserID).Save(ctx)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return ep, secret, nil
}

// UpdateWebhook changes an endpoint. Enabling it clears the reason it was disabled for.
func (s *Service) UpdateWebhook(ctx context.Context, farmID, id uuid.UUID, p WebhookPatch) (*ent.WebhookEndpoint, error) {
	v, err := s.authorizeWebhooks(ctx, farmID, true)
	if err != nil {
		return nil, err
	}
	var fe fieldErrors
	if p.URL != nil {
		if err := ValidateWebhookURL("url", *p.URL, s.webhookPrivate); err != nil {
			fe = append(fe, ErrorFields(err)...)
		}
	}
	var types []string
	if p.EventTypes != nil {
		types = validateEventTypes(&fe, p.EventTypes)
	}
	validateWebhookDescription(&fe, p.Description.Value)
	if err := fe.err(); err != nil {
		return nil, err
	}
	if err := checkEventScopes(v, types); err != nil {
		return nil, err
	}
	var out *ent.WebhookEndpoint
	err = s.inTx(ctx, func(ctx context.Context) error {
		ep, err := s.webhook(ctx, farmID, id)
		if err != nil {
			return err
		}
		if !p.changes(ep, types) {
			// A write that changes nothing changes nothing: no updated_at.
			out = ep
			return nil
		}
		u := s.Client(ctx).WebhookEndpoint.UpdateOne(ep)
		if p.URL != nil {
			u.SetURL(*p.URL)
		}
		if types != nil {
			u.SetEventTypes(types)
		}
		if p.Description.Set {
			if p.Description.Value == nil {
				u.ClearDescription()
			} else {
				u.SetDescription(*p.Description.Value)
			}
		}
		if p.Enabled != nil {
			u.SetEnabled(*p.Enabled)
			if *p.Enabled {
				u.ClearDisabledReason()
			}
		}
		out, err = u.Save(ctx)
		return err
	})
	return out, err
}

// changes reports whether p, with its validated event types, would change ep. Event types
// are a set: the same ones in another order change nothing.
func (p WebhookPatch) changes(ep *ent.WebhookEndpoint, types []string) bool {
	if p.URL != nil && *p.URL != ep.URL {
		return true
	}
	if types != nil {
		a, b := slices.Clone(types), slices.Clone(ep.EventTypes)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return true
		}
	}
	if p.Description.Set && !equalPtr(p.Description.Value, ep.Description) {
		return true
	}
	return p.Enabled != nil && (*p.Enabled != ep.Enabled || (*p.Enabled && ep.DisabledReason != nil))
}

// DeleteWebhook deletes an endpoint with its deliveries and their log; what was not yet
// delivered is never sent.
func (s *Service) DeleteWebhook(ctx context.Context, farmID, id uuid.UUID) error {
	if _, err := s.authorizeWebhooks(ctx, farmID, true); err != nil {
		return err
	}
	n, err := s.Client(ctx).WebhookEndpoint.Delete().
		Where(webhookendpoint.FarmID(farmID), webhookendpoint.ID(id)).Exec(ctx)
	if err == nil && n == 0 {
		return Errorf(ENOTFOUND, "webhook %s not found", id)
	}
	return err
}

// WebhookDeliveryStatuses lists the statuses of a delivery: PENDING until an attempt
// succeeds (SUCCEEDED) or the attempts run out (FAILED).
var WebhookDeliveryStatuses = []string{"FAILED", "PENDING", "SUCCEEDED"}

// WebhookDeliveryQuery filters and pages an endpoint's deliveries.
type WebhookDeliveryQuery struct {
	Page
	Status *string
}

// WebhookDeliveries lists an endpoint's deliveries, oldest first, each with its event and its
// attempt log. It costs six queries whatever the page size.
func (s *Service) WebhookDeliveries(ctx context.Context, farmID, webhookID uuid.UUID, q WebhookDeliveryQuery) ([]*ent.WebhookDelivery, int, error) {
	if _, err := s.authorizeWebhooks(ctx, farmID, false); err != nil {
		return nil, 0, err
	}
	skip, limit, err := s.bounds(q.Page)
	fe := fieldErrors(ErrorFields(err))
	if q.Status != nil && !slices.Contains(WebhookDeliveryStatuses, *q.Status) {
		fe.add("status", "must be one of %s", strings.Join(WebhookDeliveryStatuses, ", "))
	}
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	if _, err := s.webhook(ctx, farmID, webhookID); err != nil {
		return nil, 0, err
	}
	query := s.Client(ctx).WebhookDelivery.Query().Where(webhookdelivery.EndpointID(webhookID))
	if q.Status != nil {
		query.Where(webhookdelivery.StatusEQ(webhookdelivery.Status(*q.Status)))
	}
	total, err := query.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.WebhookDelivery{}, total, err
	}
	ds, err := deliveryDetails(query).
		Order(ent.Asc(webhookdelivery.FieldCreatedAt), ent.Asc(webhookdelivery.FieldID)).
		Offset(skip).Limit(limit).All(ctx)
	return ds, total, err
}

// ReplayWebhookDelivery queues a delivery again, at once and with a fresh attempt budget,
// under the same webhook-id, so that a receiver that did process it can drop it. A
// delivery being attempted right now, or one of a disabled endpoint, is a conflict.
func (s *Service) ReplayWebhookDelivery(ctx context.Context, farmID, webhookID, deliveryID uuid.UUID) (*ent.WebhookDelivery, error) {
	if _, err := s.authorizeWebhooks(ctx, farmID, true); err != nil {
		return nil, err
	}
	var out *ent.WebhookDelivery
	err := s.inTx(ctx, func(ctx context.Context) error {
		ep, err := s.webhook(ctx, farmID, webhookID)
		if err != nil {
			return err
		}
		if !ep.Enabled {
			return Errorf(ECONFLICT, "webhook %s is disabled; enable it before replaying its deliveries", webhookID)
		}
		c := s.Client(ctx)
		d, err := c.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(webhookID), webhookdelivery.ID(deliveryID)).Only(ctx)
		if err != nil {
			return notFound(err, "delivery", deliveryID)
		}
		now := s.nowUTC()
		n, err := c.WebhookDelivery.Update().Where(webhookdelivery.ID(d.ID),
			webhookdelivery.Or(webhookdelivery.LeaseUntilIsNil(), webhookdelivery.LeaseUntilLTE(now))).
			SetStatus(webhookdelivery.StatusPENDING).SetAttempts(0).SetNextAttemptAt(now).
			ClearLeaseUntil().ClearLeasedBy().Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return Errorf(ECONFLICT, "delivery %s is being attempted right now; look again in a minute", deliveryID)
		}
		out, err = deliveryDetails(c.WebhookDelivery.Query().Where(webhookdelivery.ID(d.ID))).Only(ctx)
		return err
	})
	return out, err
}

// deliveryDetails loads a delivery's event and its attempt log, oldest attempt first.
func deliveryDetails(q *ent.WebhookDeliveryQuery) *ent.WebhookDeliveryQuery {
	return q.WithEvent().WithAttemptLog(func(q *ent.WebhookAttemptQuery) {
		q.Order(ent.Asc("created_at"), ent.Asc("id"))
	})
}

// WebhookByURL returns the endpoint of a farm with the given URL, for administrators (the
// test command signs with its secret). It checks no viewer.
func (s *Service) WebhookByURL(ctx context.Context, farmID uuid.UUID, rawURL string) (*ent.WebhookEndpoint, error) {
	ep, err := s.client.WebhookEndpoint.Query().
		Where(webhookendpoint.FarmID(farmID), webhookendpoint.URL(rawURL)).
		Order(ent.Asc(webhookendpoint.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, Errorf(ENOTFOUND, "farm %s has no webhook with the URL %s", farmID, rawURL)
	}
	return ep, err
}

// WebhookNode is node(id:) for the webhook types: the endpoint or the delivery (with its
// event and attempt log) that has the id, when the viewer may manage its farm's webhooks
// (read:farms and OWNER, as the lists). An id the viewer may not read is not found, as for
// every node.
func (s *Service) WebhookNode(ctx context.Context, id uuid.UUID) (any, error) {
	if _, err := authenticate(ctx); err != nil {
		return nil, err
	}
	c := s.Client(ctx)
	var farmID uuid.UUID
	var out any
	ep, err := c.WebhookEndpoint.Query().Where(webhookendpoint.ID(id)).Only(ctx)
	switch {
	case err == nil:
		farmID, out = ep.FarmID, ep
	case !ent.IsNotFound(err):
		return nil, err
	default:
		d, err := deliveryDetails(c.WebhookDelivery.Query().Where(webhookdelivery.ID(id))).WithEndpoint().Only(ctx)
		if err != nil {
			return nil, notFound(err, "node", id)
		}
		farmID, out = d.Edges.Endpoint.FarmID, d
	}
	if _, err := s.authorizeWebhooks(ctx, farmID, false); err != nil {
		if code := ErrorCode(err); code == EUNAVAILABLE || code == EINTERNAL {
			return nil, err
		}
		return nil, Errorf(ENOTFOUND, "node %s not found", id)
	}
	return out, nil
}
