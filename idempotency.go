package herdbook

import (
	"context"
	"time"
	"unicode"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/idempotentrequest"
)

// Idempotency-Key semantics, after Stripe's: the same key with the same request replays the
// first answer (status and body) for IdempotencyTTL; the same key with another request is a
// conflict; keys belong to the user who sent them; a duplicate sent while the first request
// still runs waits for its answer instead of writing a second time.
const (
	IdempotencyTTL = 24 * time.Hour
	// MaxIdempotencyKey is the longest key accepted.
	MaxIdempotencyKey = 255
	// idempotencyWait is how long a duplicate waits for the first request's answer before
	// it is told to retry.
	idempotencyWait = 15 * time.Second
	// idempotencyAbandoned is how long a place may be held without an answer before it is
	// taken for a request that died with its server, and freed for a retry.
	idempotencyAbandoned = 10 * time.Minute
)

// IdempotentAnswer is a stored answer to replay.
type IdempotentAnswer struct {
	Status      int
	ContentType string
	Body        []byte
}

// IdempotentPlace is the place a first request holds for its key; Complete stores its
// answer, Release gives the place up when there is no answer worth replaying.
type IdempotentPlace struct {
	svc *Service
	row *ent.IdempotentRequest
}

// ValidateIdempotencyKey checks a key: 1 to 255 printable characters.
func ValidateIdempotencyKey(key string) error {
	if err := CheckText("Idempotency-Key", key); err != nil {
		return err
	}
	bad := key == "" || len(key) > MaxIdempotencyKey
	for _, r := range key {
		if !unicode.IsPrint(r) {
			bad = true
		}
	}
	if bad {
		return Invalid(FieldError{Field: "Idempotency-Key", Message: "must be 1 to 255 printable characters"})
	}
	return nil
}

// BeginIdempotent claims key for the viewer's request with the given fingerprint. It answers
// a stored answer to replay, or a place to run the request in (complete it afterwards), or
// ECONFLICT when the key was used for another request or its first request is still running
// after a wait. Anonymous requests have no key space: the caller runs them as they are.
func (s *Service) BeginIdempotent(ctx context.Context, key, fingerprint string) (*IdempotentAnswer, *IdempotentPlace, error) {
	v := ViewerFrom(ctx)
	if v == nil {
		return nil, nil, RequireViewer(ctx)
	}
	if err := ValidateIdempotencyKey(key); err != nil {
		return nil, nil, err
	}
	deadline := time.Now().Add(idempotencyWait)
	for delay := 20 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		row, err := s.client.IdempotentRequest.Create().SetUserID(v.UserID).SetKey(key).SetFingerprint(fingerprint).Save(ctx)
		if err == nil {
			return nil, &IdempotentPlace{svc: s, row: row}, nil
		}
		if !ent.IsConstraintError(err) {
			return nil, nil, err
		}
		prev, err := s.client.IdempotentRequest.Query().
			Where(idempotentrequest.UserID(v.UserID), idempotentrequest.Key(key)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			continue // freed between our insert and this read: claim it again
		case err != nil:
			return nil, nil, err
		}
		age := s.now().Sub(prev.CreatedAt)
		if age > IdempotencyTTL || (prev.Status == 0 && age > idempotencyAbandoned) {
			// Expired, or held by a request that died: free it and claim it anew.
			if _, err := s.client.IdempotentRequest.Delete().Where(idempotentrequest.ID(prev.ID),
				idempotentrequest.Status(prev.Status)).Exec(ctx); err != nil {
				return nil, nil, err
			}
			continue
		}
		if prev.Fingerprint != fingerprint {
			return nil, nil, Errorf(ECONFLICT, "Idempotency-Key %q was already used for another request; use a new key", key)
		}
		if prev.Status != 0 {
			return &IdempotentAnswer{Status: prev.Status, ContentType: prev.ContentType, Body: prev.Body}, nil, nil
		}
		if time.Now().After(deadline) {
			return nil, nil, Errorf(ECONFLICT, "a request with Idempotency-Key %q is still running; retry later", key)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// Complete stores the answer for replay. The first request's context may be gone by then
// (the client left), so the answer is stored regardless.
func (p *IdempotentPlace) Complete(ctx context.Context, a IdempotentAnswer) error {
	return p.svc.client.IdempotentRequest.UpdateOne(p.row).SetStatus(a.Status).
		SetContentType(a.ContentType).SetBody(a.Body).Exec(context.WithoutCancel(ctx))
}

// Release frees the key without an answer, so that a retry runs the request again: for
// answers that say nothing about the request (a server error, a rate limit, an outage).
func (p *IdempotentPlace) Release(ctx context.Context) error {
	return p.svc.client.IdempotentRequest.DeleteOne(p.row).Exec(context.WithoutCancel(ctx))
}

// PurgeIdempotencyKeys deletes the answers older than IdempotencyTTL; it returns how many.
func (s *Service) PurgeIdempotencyKeys(ctx context.Context) (int, error) {
	return s.client.IdempotentRequest.Delete().
		Where(idempotentrequest.CreatedAtLT(s.nowUTC().Add(-IdempotencyTTL))).Exec(ctx)
}
