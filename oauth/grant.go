package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/accesstoken"
	"github.com/herdbook/herdbook/ent/oauthcode"
	"github.com/herdbook/herdbook/ent/oauthgrant"
	"github.com/herdbook/herdbook/ent/refreshtoken"
)

// Prefixes of the credentials the issuer hands out. They tell people and secret scanners
// what a leaked string is; the 256 random bits after them are what makes it unguessable.
const (
	prefixAccess  = "hbat_"
	prefixRefresh = "hbrt_"
	prefixCode    = "hbac_"
	prefixDevice  = "hbdc_"
	prefixSession = "hbss_"
	prefixCSRF    = "hbcf_"
	prefixAPIKey  = "hbak_"
)

// Tokens is what a successful grant hands the client. RefreshToken is empty for observer
// clients.
type Tokens struct {
	AccessToken  string
	RefreshToken string
	ExpiresIn    time.Duration
	Scopes       []string
	GrantID      uuid.UUID
}

// ParseScope splits a space-separated scope parameter (RFC 6749 §3.3), dropping repeats.
func ParseScope(s string) []string {
	var out []string
	for _, sc := range strings.Fields(s) {
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// checkScopes returns the requested scopes when every one is known and allowed, or the
// allowed set itself when none was requested.
func checkScopes(requested, allowed []string) ([]string, error) {
	if len(requested) == 0 {
		return slices.Clone(allowed), nil
	}
	for _, s := range requested {
		if !slices.Contains(herdbook.AllScopes, s) {
			return nil, oauthErr(ErrCodeInvalidScope, "unknown scope %q", s)
		}
		if !slices.Contains(allowed, s) {
			return nil, oauthErr(ErrCodeInvalidScope, "scope %q is not allowed for this client", s)
		}
	}
	return requested, nil
}

// verifierPattern is RFC 7636 §4.1: 43 to 128 characters of the unreserved set.
var verifierPattern = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// challengePattern is the only form an S256 challenge has: 32 bytes, base64url, no padding.
var challengePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// S256 returns the PKCE S256 challenge of a verifier.
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// checkPKCE verifies a code_verifier against the challenge stored with the code.
func checkPKCE(challenge, verifier string) error {
	switch {
	case challenge == "" && verifier == "":
		return nil
	case challenge == "":
		return oauthErr(ErrCodeInvalidGrant, "a code_verifier was sent, but the authorization request had no code_challenge")
	case verifier == "":
		return oauthErr(ErrCodeInvalidGrant, "code_verifier is required: the authorization request had a code_challenge")
	case !verifierPattern.MatchString(verifier):
		return oauthErr(ErrCodeInvalidRequest, "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
	case subtle.ConstantTimeCompare([]byte(S256(verifier)), []byte(challenge)) != 1:
		return oauthErr(ErrCodeInvalidGrant, "code_verifier does not match the code_challenge")
	}
	return nil
}

// AuthorizeRequest is a checked authorization request (the query of /oauth/authorize).
type AuthorizeRequest struct {
	Client        *ent.OAuthClient
	RedirectURI   string
	Scopes        []string
	State         string
	CodeChallenge string
}

// ErrBadRedirect is what CheckAuthorizeRequest returns when the client or the redirect_uri
// cannot be trusted: the error must be shown to the user, never sent to that redirect_uri.
type ErrBadRedirect struct{ Reason string }

func (e *ErrBadRedirect) Error() string { return "oauth: " + e.Reason }

// CheckAuthorizeRequest validates an authorization request. A *ErrBadRedirect means the
// client or redirect_uri is wrong (show it, do not redirect); an *Error is a problem that may
// be reported to the (then verified) redirect_uri.
func (i *Issuer) CheckAuthorizeRequest(ctx context.Context, clientID, redirectURI, responseType, scope, challenge, method string) (*AuthorizeRequest, error) {
	for _, p := range []struct{ name, v string }{
		{"client_id", clientID}, {"redirect_uri", redirectURI}, {"response_type", responseType}, {"scope", scope},
		{"code_challenge", challenge}, {"code_challenge_method", method},
	} {
		if err := herdbook.CheckText(p.name, p.v); err != nil {
			f := herdbook.ErrorFields(err)[0]
			return nil, &ErrBadRedirect{f.Field + " " + f.Message}
		}
	}
	if clientID == "" || len(clientID) > 255 {
		return nil, &ErrBadRedirect{"client_id is missing or too long"}
	}
	cl, err := i.Client(ctx, clientID)
	if herdbook.ErrorCode(err) == herdbook.EUNAUTHORIZED {
		return nil, &ErrBadRedirect{"the application (client_id) is not registered"}
	}
	if err != nil {
		return nil, err
	}
	if redirectURI == "" {
		return nil, &ErrBadRedirect{"redirect_uri is required"}
	}
	// Exact string comparison, as RFC 9700 §4.1.3 asks: no prefix, suffix or host matching.
	if !slices.Contains(cl.RedirectUris, redirectURI) {
		return nil, &ErrBadRedirect{"redirect_uri is not registered for this application"}
	}
	req := &AuthorizeRequest{Client: cl, RedirectURI: redirectURI}
	if responseType != "code" {
		return req, oauthErr(ErrCodeUnsupportedResponse, "response_type must be code")
	}
	if strings.TrimSpace(scope) == "" {
		return req, oauthErr(ErrCodeInvalidScope, "scope is required")
	}
	if len(scope) > 1024 {
		return req, oauthErr(ErrCodeInvalidScope, "scope must be at most 1024 characters")
	}
	if req.Scopes, err = checkScopes(ParseScope(scope), cl.Scopes); err != nil {
		return req, err
	}
	switch {
	case challenge == "" && method != "":
		return req, oauthErr(ErrCodeInvalidRequest, "code_challenge_method was sent without code_challenge")
	case challenge == "" && cl.Public:
		return req, oauthErr(ErrCodeInvalidRequest, "PKCE is required for this application: send code_challenge with code_challenge_method=S256")
	case challenge != "" && method != "S256":
		return req, oauthErr(ErrCodeInvalidRequest, "code_challenge_method must be S256")
	case challenge != "" && !challengePattern.MatchString(challenge):
		return req, oauthErr(ErrCodeInvalidRequest, "code_challenge must be the 43-character base64url SHA-256 of the verifier")
	}
	req.CodeChallenge = challenge
	return req, nil
}

// IssueCode stores an authorization code for a checked request approved by userID and
// returns the code, shown once.
func (i *Issuer) IssueCode(ctx context.Context, req *AuthorizeRequest, userID uuid.UUID) (string, error) {
	code := NewSecret(prefixCode)
	_, err := i.client.OAuthCode.Create().
		SetCodeHash(Hash(code)).
		SetClientID(req.Client.ID).
		SetUserID(userID).
		SetRedirectURI(req.RedirectURI).
		SetScopes(req.Scopes).
		SetCodeChallenge(req.CodeChallenge).
		SetExpiresAt(i.now().Add(CodeTTL)).
		Save(ctx)
	if err != nil {
		return "", err
	}
	return code, nil
}

// AuthenticateClient checks the client credentials presented at the token endpoint. A
// confidential client must present its secret; a public client must not present one.
func (i *Issuer) AuthenticateClient(ctx context.Context, clientID, secret string) (*ent.OAuthClient, error) {
	if clientID == "" || len(clientID) > 255 {
		return nil, oauthErr(ErrCodeInvalidClient, "client_id is missing or too long")
	}
	cl, err := i.Client(ctx, clientID)
	if herdbook.ErrorCode(err) == herdbook.EUNAUTHORIZED {
		return nil, oauthErr(ErrCodeInvalidClient, "client authentication failed")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case cl.Public && secret != "":
		return nil, oauthErr(ErrCodeInvalidClient, "a public client has no secret; send none")
	case !cl.Public && !CheckSecret(cl, secret):
		return nil, oauthErr(ErrCodeInvalidClient, "client authentication failed")
	}
	return cl, nil
}

// RedeemCode exchanges an authorization code for tokens. The code must belong to cl, match
// redirectURI exactly and pass PKCE; it is consumed by a conditional UPDATE, so of two
// concurrent redemptions one wins. Any later presentation is a replay and revokes the grant
// the first one made (RFC 6749 §4.1.2).
func (i *Issuer) RedeemCode(ctx context.Context, cl *ent.OAuthClient, code, redirectURI, verifier string) (*Tokens, error) {
	now := i.now()
	c, err := i.client.OAuthCode.Query().Where(oauthcode.CodeHash(Hash(code))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, oauthErr(ErrCodeInvalidGrant, "the authorization code is invalid")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case c.UsedAt != nil:
		if err := i.revokeCodeGrant(ctx, c.ID, "authorization code replayed"); err != nil {
			return nil, err
		}
		return nil, oauthErr(ErrCodeInvalidGrant, "the authorization code was already used; the tokens it issued are revoked")
	case c.ClientID != cl.ID:
		return nil, oauthErr(ErrCodeInvalidGrant, "the authorization code was issued to another client")
	case !now.Before(c.ExpiresAt):
		return nil, oauthErr(ErrCodeInvalidGrant, "the authorization code has expired")
	case c.RedirectURI != redirectURI:
		return nil, oauthErr(ErrCodeInvalidGrant, "redirect_uri does not match the authorization request")
	}
	if err := checkPKCE(c.CodeChallenge, verifier); err != nil {
		return nil, err
	}
	var toks *Tokens
	err = i.inTx(ctx, func(tx *ent.Client) error {
		n, err := tx.OAuthCode.Update().
			Where(oauthcode.ID(c.ID), oauthcode.UsedAtIsNil(), oauthcode.ExpiresAtGT(now)).
			SetUsedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errLostRace
		}
		g, err := tx.OAuthGrant.Create().SetClientID(cl.ID).SetUserID(c.UserID).SetScopes(c.Scopes).
			SetSource(oauthgrant.SourceAuthorizationCode).Save(ctx)
		if err != nil {
			return err
		}
		if err := tx.OAuthCode.UpdateOneID(c.ID).SetGrantID(g.ID).Exec(ctx); err != nil {
			return err
		}
		toks, err = i.issueTokens(ctx, tx, g.ID, cl.ID, c.UserID, c.Scopes, !cl.Observer, now)
		return err
	})
	if err == errLostRace {
		// Another redemption consumed the code between our read and our update: this one
		// is a replay like any other.
		if err := i.revokeCodeGrant(ctx, c.ID, "authorization code replayed"); err != nil {
			return nil, err
		}
		return nil, oauthErr(ErrCodeInvalidGrant, "the authorization code was already used; the tokens it issued are revoked")
	}
	if err != nil {
		return nil, err
	}
	return toks, nil
}

// errLostRace says a conditional update found its row already taken.
var errLostRace = fmt.Errorf("oauth: lost the race for a single-use credential")

// issueTokens creates an access token, and a refresh token when refresh is true, under the
// grant.
func (i *Issuer) issueTokens(ctx context.Context, tx *ent.Client, grantID, clientID, userID uuid.UUID, scopes []string, refresh bool, now time.Time) (*Tokens, error) {
	t := &Tokens{AccessToken: NewSecret(prefixAccess), ExpiresIn: DefaultAccessTokenTTL, Scopes: scopes, GrantID: grantID}
	if err := tx.AccessToken.Create().SetTokenHash(Hash(t.AccessToken)).SetClientID(clientID).
		SetUserID(userID).SetScopes(scopes).SetExpiresAt(now.Add(DefaultAccessTokenTTL)).
		SetGrantID(grantID).Exec(ctx); err != nil {
		return nil, err
	}
	if refresh {
		t.RefreshToken = NewSecret(prefixRefresh)
		if err := tx.RefreshToken.Create().SetTokenHash(Hash(t.RefreshToken)).SetGrantID(grantID).
			SetClientID(clientID).SetUserID(userID).SetScopes(scopes).
			SetExpiresAt(now.Add(RefreshTokenTTL)).Exec(ctx); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// revokeCodeGrant revokes the grant a (used) code issued, if it issued one.
func (i *Issuer) revokeCodeGrant(ctx context.Context, codeID uuid.UUID, reason string) error {
	c, err := i.client.OAuthCode.Get(ctx, codeID)
	if err != nil {
		return err
	}
	if c.GrantID == nil {
		return nil
	}
	return i.RevokeGrant(ctx, *c.GrantID, reason)
}

// RevokeGrant revokes a grant and every access and refresh token issued under it.
func (i *Issuer) RevokeGrant(ctx context.Context, grantID uuid.UUID, reason string) error {
	now := i.now()
	return i.inTx(ctx, func(tx *ent.Client) error {
		if err := tx.OAuthGrant.Update().Where(oauthgrant.ID(grantID), oauthgrant.RevokedAtIsNil()).
			SetRevokedAt(now).SetRevokeReason(reason).Exec(ctx); err != nil {
			return err
		}
		if err := tx.AccessToken.Update().Where(accesstoken.GrantID(grantID), accesstoken.RevokedAtIsNil()).
			SetRevokedAt(now).Exec(ctx); err != nil {
			return err
		}
		return tx.RefreshToken.Update().Where(refreshtoken.GrantID(grantID), refreshtoken.RevokedAtIsNil()).
			SetRevokedAt(now).Exec(ctx)
	})
}

// Refresh rotates a refresh token: the presented token is consumed (conditional UPDATE) and
// a new access and refresh token of the same grant are issued. requested may narrow the
// scopes, never widen them. Presenting a consumed token again is reuse: the whole grant is
// revoked, which also ends the family of a concurrent winner (RFC 9700 §4.14.2).
func (i *Issuer) Refresh(ctx context.Context, cl *ent.OAuthClient, raw string, requested []string) (*Tokens, error) {
	now := i.now()
	if cl.Observer {
		return nil, oauthErr(ErrCodeUnauthorizedClient, "observer sessions cannot be refreshed")
	}
	rt, err := i.client.RefreshToken.Query().Where(refreshtoken.TokenHash(Hash(raw))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, oauthErr(ErrCodeInvalidGrant, "the refresh token is invalid")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case rt.ClientID != cl.ID:
		return nil, oauthErr(ErrCodeInvalidGrant, "the refresh token was issued to another client")
	case rt.RevokedAt != nil:
		return nil, oauthErr(ErrCodeInvalidGrant, "the refresh token has been revoked")
	case rt.UsedAt != nil:
		if err := i.RevokeGrant(ctx, rt.GrantID, "refresh token reused"); err != nil {
			return nil, err
		}
		return nil, oauthErr(ErrCodeInvalidGrant, "the refresh token was already used; its whole family is now revoked")
	case !now.Before(rt.ExpiresAt):
		return nil, oauthErr(ErrCodeInvalidGrant, "the refresh token has expired")
	}
	scopes := rt.Scopes
	if len(requested) > 0 {
		for _, s := range requested {
			if !slices.Contains(rt.Scopes, s) {
				return nil, oauthErr(ErrCodeInvalidScope, "scope %q was not granted; a refresh can only narrow the scopes", s)
			}
		}
		scopes = requested
	}
	// A client whose allowed scopes were narrowed since the grant gets no more than it may
	// have now.
	scopes = slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return !slices.Contains(cl.Scopes, s) })
	if len(scopes) == 0 {
		return nil, oauthErr(ErrCodeInvalidScope, "none of the granted scopes is still allowed for this client")
	}
	var toks *Tokens
	err = i.inTx(ctx, func(tx *ent.Client) error {
		n, err := tx.RefreshToken.Update().
			Where(refreshtoken.ID(rt.ID), refreshtoken.UsedAtIsNil(), refreshtoken.RevokedAtIsNil()).
			SetUsedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errLostRace
		}
		// Touching the grant row locks it, so a concurrent RevokeGrant either finishes
		// first (and we see it revoked) or waits for us and then revokes what we issue.
		n, err = tx.OAuthGrant.Update().Where(oauthgrant.ID(rt.GrantID), oauthgrant.RevokedAtIsNil()).
			SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return oauthErr(ErrCodeInvalidGrant, "the refresh token has been revoked")
		}
		toks, err = i.issueTokens(ctx, tx, rt.GrantID, rt.ClientID, rt.UserID, scopes, true, now)
		return err
	})
	if err == errLostRace {
		if err := i.RevokeGrant(ctx, rt.GrantID, "refresh token reused"); err != nil {
			return nil, err
		}
		return nil, oauthErr(ErrCodeInvalidGrant, "the refresh token was already used; its whole family is now revoked")
	}
	if err != nil {
		return nil, err
	}
	return toks, nil
}

// Revoke revokes a token presented by clientID (RFC 7009). An access token is revoked alone;
// a refresh token revokes its whole grant. It reports whether something was revoked now: an
// unknown token, a token of another client and an already revoked token all give false,
// and the tokens of other clients are never touched.
func (i *Issuer) Revoke(ctx context.Context, cl *ent.OAuthClient, raw string) (bool, error) {
	now := i.now()
	h := Hash(raw)
	n, err := i.client.AccessToken.Update().
		Where(accesstoken.TokenHash(h), accesstoken.ClientID(cl.ID), accesstoken.RevokedAtIsNil()).
		SetRevokedAt(now).Save(ctx)
	if err != nil || n > 0 {
		return n > 0, err
	}
	rt, err := i.client.RefreshToken.Query().
		Where(refreshtoken.TokenHash(h), refreshtoken.ClientID(cl.ID), refreshtoken.RevokedAtIsNil()).
		Only(ctx)
	if ent.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, i.RevokeGrant(ctx, rt.GrantID, "revoked by the client")
}
