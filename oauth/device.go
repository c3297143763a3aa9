package oauth

import (
	"context"
	"crypto/rand"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/deviceauthorization"
	"github.com/herdbook/herdbook/ent/oauthgrant"
)

// UserCodeAlphabet is the alphabet of user codes (RFC 8628 §6.1): consonants only, so no code
// spells a word and none holds a digit to mistake for a letter (0 and O, 1 and I). 20^8
// codes give about 34.5 bits; guesses are rate limited and codes live 900 seconds.
const UserCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

// pollGrace is how much sooner than the interval a poll may come without slow_down.
const pollGrace = 500 * time.Millisecond

// userCodeLen is the number of characters of a user code, shown as XXXX-XXXX.
const userCodeLen = 8

// NewUserCode returns a random user code in its display form, XXXX-XXXX.
func NewUserCode() string {
	var b strings.Builder
	n := big.NewInt(int64(len(UserCodeAlphabet)))
	for i := range userCodeLen {
		if i == userCodeLen/2 {
			b.WriteByte('-')
		}
		k, err := rand.Int(rand.Reader, n) // uniform: no modulo bias
		if err != nil {
			panic("oauth: no randomness: " + err.Error())
		}
		b.WriteByte(UserCodeAlphabet[k.Int64()])
	}
	return b.String()
}

// NormalizeUserCode folds what a person typed into the stored form: case, dashes and spaces
// do not matter. It reports false when the result cannot be a user code.
func NormalizeUserCode(s string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == '-' || r == ' ' || r == '\t':
			continue
		case r < 128 && strings.IndexByte(UserCodeAlphabet, byte(r)) >= 0:
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	if b.Len() != userCodeLen {
		return "", false
	}
	return b.String(), true
}

// DeviceStart is the answer to a device authorization request (RFC 8628 §3.2).
type DeviceStart struct {
	DeviceCode string
	UserCode   string
	ExpiresIn  time.Duration
	Interval   int
	Scopes     []string
}

// StartDevice begins a device authorization for an active client, for the requested scopes
// (all the client's allowed scopes when none are named). Errors are service errors: an
// unknown client is EUNAUTHORIZED, a scope beyond the client's EINVALID.
func (i *Issuer) StartDevice(ctx context.Context, clientID, scope string) (*DeviceStart, error) {
	cl, err := i.Client(ctx, clientID)
	if err != nil {
		return nil, err
	}
	scopes, err := checkScopes(ParseScope(scope), cl.Scopes)
	if err != nil {
		return nil, herdbook.Invalid(herdbook.FieldError{Field: "scope", Message: AsError(err).Description})
	}
	now := i.now()
	for range 5 {
		ds := &DeviceStart{DeviceCode: NewSecret(prefixDevice), UserCode: NewUserCode(), ExpiresIn: DeviceCodeTTL, Interval: DeviceInterval, Scopes: scopes}
		norm, _ := NormalizeUserCode(ds.UserCode)
		err = i.client.DeviceAuthorization.Create().
			SetDeviceCodeHash(Hash(ds.DeviceCode)).
			SetUserCodeHash(Hash(norm)).
			SetClientID(cl.ID).
			SetScopes(scopes).
			SetExpiresAt(now.Add(DeviceCodeTTL)).
			SetInterval(DeviceInterval).
			Exec(ctx)
		if ent.IsConstraintError(err) {
			continue // a user code that was handed out before: draw another
		}
		if err != nil {
			return nil, err
		}
		return ds, nil
	}
	return nil, err
}

// PendingDevice is a device authorization waiting for the user's decision, as the
// verification page shows it.
type PendingDevice struct {
	UserCode   string // display form
	ClientName string
	Scopes     []string
	ExpiresAt  time.Time
}

// errUserCode is the one answer for every user code that cannot be decided: unknown, expired,
// already decided. Telling them apart would help whoever guesses.
var errUserCode = herdbook.Errorf(herdbook.ENOTFOUND, "this code is not valid: check it and try again, or start again on your device")

// LookupUserCode finds the pending device authorization of a user code.
func (i *Issuer) LookupUserCode(ctx context.Context, userCode string) (*PendingDevice, error) {
	norm, ok := NormalizeUserCode(userCode)
	if !ok {
		return nil, errUserCode
	}
	da, err := i.client.DeviceAuthorization.Query().
		Where(
			deviceauthorization.UserCodeHash(Hash(norm)),
			deviceauthorization.StatusEQ(deviceauthorization.StatusPending),
			deviceauthorization.ExpiresAtGT(i.now()),
		).WithClient().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errUserCode
	}
	if err != nil {
		return nil, err
	}
	return &PendingDevice{UserCode: norm[:4] + "-" + norm[4:], ClientName: da.Edges.Client.Name, Scopes: da.Scopes, ExpiresAt: da.ExpiresAt}, nil
}

// DecideDevice records the user's approval or denial of a pending device authorization. Only
// a pending, unexpired authorization can be decided, once.
func (i *Issuer) DecideDevice(ctx context.Context, userCode string, userID uuid.UUID, approve bool) error {
	norm, ok := NormalizeUserCode(userCode)
	if !ok {
		return errUserCode
	}
	now := i.now()
	status := deviceauthorization.StatusDenied
	if approve {
		status = deviceauthorization.StatusApproved
	}
	n, err := i.client.DeviceAuthorization.Update().
		Where(
			deviceauthorization.UserCodeHash(Hash(norm)),
			deviceauthorization.StatusEQ(deviceauthorization.StatusPending),
			deviceauthorization.ExpiresAtGT(now),
		).
		SetStatus(status).SetUserID(userID).SetDecidedAt(now).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return errUserCode
	}
	return nil
}

// PollDevice is the device's token request (RFC 8628 §3.4). It answers *Error values with
// the RFC 8628 codes: authorization_pending and slow_down while the user has not decided (a
// poll sooner than the interval is slow_down and adds five seconds to it), access_denied,
// expired_token, and invalid_grant for a code that is unknown, consumed, issued to another
// client, or carries scopes the client may no longer have. An approved code is consumed by
// a conditional UPDATE: it yields tokens once.
func (i *Issuer) PollDevice(ctx context.Context, cl *ent.OAuthClient, deviceCode string) (*Tokens, error) {
	now := i.now()
	da, err := i.client.DeviceAuthorization.Query().
		Where(deviceauthorization.DeviceCodeHash(Hash(deviceCode))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, oauthErr(ErrCodeInvalidGrant, "the device code is invalid")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case da.ClientID != cl.ID:
		return nil, oauthErr(ErrCodeInvalidGrant, "the device code was issued to another client")
	case da.ConsumedAt != nil:
		return nil, oauthErr(ErrCodeInvalidGrant, "the device code was already used")
	case !now.Before(da.ExpiresAt):
		return nil, oauthErr(ErrCodeExpiredToken, "the device code has expired; start again")
	case da.Status == deviceauthorization.StatusDenied:
		return nil, oauthErr(ErrCodeAccessDenied, "the user denied the request")
	case da.Status == deviceauthorization.StatusPending:
		return nil, i.pendingPoll(ctx, da, now)
	}
	for _, s := range da.Scopes {
		if !slices.Contains(cl.Scopes, s) {
			return nil, oauthErr(ErrCodeInvalidGrant, "the device code carries the scope %s, which the client may no longer have", s)
		}
	}
	if da.UserID == nil {
		return nil, oauthErr(ErrCodeInvalidGrant, "the device code is invalid")
	}
	var toks *Tokens
	err = i.inTx(ctx, func(tx *ent.Client) error {
		n, err := tx.DeviceAuthorization.Update().
			Where(
				deviceauthorization.ID(da.ID),
				deviceauthorization.ConsumedAtIsNil(),
				deviceauthorization.StatusEQ(deviceauthorization.StatusApproved),
				deviceauthorization.ExpiresAtGT(now),
			).SetConsumedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errLostRace
		}
		g, err := tx.OAuthGrant.Create().SetClientID(cl.ID).SetUserID(*da.UserID).SetScopes(da.Scopes).
			SetSource(oauthgrant.SourceDeviceCode).Save(ctx)
		if err != nil {
			return err
		}
		if err := tx.DeviceAuthorization.UpdateOneID(da.ID).SetGrantID(g.ID).Exec(ctx); err != nil {
			return err
		}
		toks, err = i.issueTokens(ctx, tx, g.ID, cl.ID, *da.UserID, da.Scopes, !cl.Observer, now)
		return err
	})
	if err == errLostRace {
		return nil, oauthErr(ErrCodeInvalidGrant, "the device code was already used")
	}
	return toks, err
}

// pendingPoll enforces the polling interval of a pending authorization and answers
// authorization_pending or slow_down.
func (i *Issuer) pendingPoll(ctx context.Context, da *ent.DeviceAuthorization, now time.Time) error {
	// Half a second of grace: a client that waits exactly the interval must not be told to
	// slow down because its request crossed the network faster than the previous one.
	if da.NextPollAt != nil && now.Add(pollGrace).Before(*da.NextPollAt) {
		interval := da.Interval + 5
		if err := i.client.DeviceAuthorization.UpdateOneID(da.ID).SetInterval(interval).
			SetNextPollAt(now.Add(time.Duration(interval) * time.Second)).Exec(ctx); err != nil {
			return err
		}
		return oauthErr(ErrCodeSlowDown, "polling too fast: wait at least %d seconds between requests", interval)
	}
	if err := i.client.DeviceAuthorization.UpdateOneID(da.ID).
		SetNextPollAt(now.Add(time.Duration(da.Interval) * time.Second)).Exec(ctx); err != nil {
		return err
	}
	return oauthErr(ErrCodeAuthorizationPending, "the user has not yet approved the request")
}
