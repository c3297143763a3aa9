package herdbook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
)

// DeviceKey answers the signed-in user's device key: 32 bytes that are the same at every
// sign-in of that user and differ between users, which the web app uses to lock what it
// keeps on a device after a sign-out (the writes still queued) so that only the same user's
// next sign-in opens them (docs/web.md, "Kept after sign-out"). It is an HMAC-SHA256 keyed
// with the user's password hash (bcrypt, salted, known only to the server) over the user's
// id, so nothing new is stored and nothing about the password can be learnt from it; a new
// password makes a new key, and what an older session kept can then no longer be opened.
// A user without a password (none signs in to the web app) has no device key.
func (s *Service) DeviceKey(ctx context.Context) ([]byte, error) {
	u, err := s.Me(ctx)
	if err != nil {
		return nil, err
	}
	if u.PasswordHash == "" {
		return nil, Errorf(ECONFLICT, "the user has no password, so no device key")
	}
	m := hmac.New(sha256.New, []byte(u.PasswordHash))
	m.Write([]byte("herdbook device key v1\x00"))
	m.Write([]byte(u.ID.String()))
	return m.Sum(nil), nil
}
