package oauth

import (
	"context"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/browsersession"
	"github.com/herdbook/herdbook/ent/user"
)

// StartSession signs userID in to the OAuth pages and returns the session secret for the
// cookie, shown once: only its hash is stored.
func (i *Issuer) StartSession(ctx context.Context, userID uuid.UUID) (string, error) {
	raw := NewSecret(prefixSession)
	err := i.client.BrowserSession.Create().SetTokenHash(Hash(raw)).SetUserID(userID).
		SetExpiresAt(i.now().Add(SessionTTL)).Exec(ctx)
	return raw, err
}

// SessionUser returns the signed-in user of a session secret, or nil when the session is
// unknown, expired, or its user inactive.
func (i *Issuer) SessionUser(ctx context.Context, raw string) (*ent.User, error) {
	if raw == "" {
		return nil, nil
	}
	s, err := i.client.BrowserSession.Query().
		Where(
			browsersession.TokenHash(Hash(raw)),
			browsersession.ExpiresAtGT(i.now()),
			browsersession.HasUserWith(user.IsActive(true)),
		).WithUser().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s.Edges.User, nil
}

// EndSession signs a session out.
func (i *Issuer) EndSession(ctx context.Context, raw string) error {
	if raw == "" {
		return nil
	}
	_, err := i.client.BrowserSession.Delete().Where(browsersession.TokenHash(Hash(raw))).Exec(ctx)
	return err
}
