package oauth

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/apikey"
	"github.com/herdbook/herdbook/ent/user"
)

// APIKeyInput creates a legacy API key.
type APIKeyInput struct {
	UserID uuid.UUID
	Name   string
	Scopes []string
	TTL    time.Duration // zero: the key does not expire
}

// Validate checks an APIKeyInput.
func (in APIKeyInput) Validate() error {
	var fe []herdbook.FieldError
	add := func(f, m string) { fe = append(fe, herdbook.FieldError{Field: f, Message: m}) }
	if err := herdbook.CheckText("name", in.Name); err != nil {
		fe = append(fe, herdbook.ErrorFields(err)...)
	} else if n := strings.TrimSpace(in.Name); n == "" || len(n) > 200 {
		add("name", "must be 1 to 200 characters")
	}
	if len(in.Scopes) == 0 {
		add("scopes", "must name at least one scope")
	}
	for _, s := range in.Scopes {
		if !slices.Contains(herdbook.AllScopes, s) {
			add("scopes", fmt.Sprintf("unknown scope %q; known: %s", s, strings.Join(herdbook.AllScopes, " ")))
		}
	}
	if in.TTL < 0 {
		add("ttl", "must not be negative")
	}
	return herdbook.Invalid(fe...)
}

// CreateAPIKey makes a legacy API key for a user and returns it, shown once: only its hash
// is stored. Legacy keys are deprecated; they exist for integrations that cannot yet run an
// OAuth flow.
func (i *Issuer) CreateAPIKey(ctx context.Context, in APIKeyInput) (string, *ent.APIKey, error) {
	if err := in.Validate(); err != nil {
		return "", nil, err
	}
	raw := NewSecret(prefixAPIKey)
	c := i.client.APIKey.Create().SetKeyHash(Hash(raw)).SetName(strings.TrimSpace(in.Name)).
		SetUserID(in.UserID).SetScopes(in.Scopes)
	if in.TTL > 0 {
		c.SetExpiresAt(i.now().Add(in.TTL))
	}
	k, err := c.Save(ctx)
	if ent.IsConstraintError(err) {
		return "", nil, herdbook.Errorf(herdbook.ENOTFOUND, "user %s not found", in.UserID)
	}
	return raw, k, err
}

// ResolveAPIKey turns a presented legacy key into its viewer, or EUNAUTHORIZED when the key
// is unknown, expired, deactivated, or belongs to an inactive user. One query.
func (i *Issuer) ResolveAPIKey(ctx context.Context, raw string) (*herdbook.Viewer, error) {
	k, err := i.client.APIKey.Query().
		Where(
			apikey.KeyHash(Hash(raw)),
			apikey.Or(apikey.ExpiresAtIsNil(), apikey.ExpiresAtGT(i.now())),
			apikey.HasUserWith(user.IsActive(true)),
		).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, herdbook.Errorf(herdbook.EUNAUTHORIZED, "the API key is invalid, expired or revoked")
	}
	if err != nil {
		return nil, err
	}
	return &herdbook.Viewer{
		UserID:     k.UserID,
		ClientID:   "api-key:" + k.ID.String(),
		Scopes:     k.Scopes,
		Credential: herdbook.CredentialAPIKey,
	}, nil
}
