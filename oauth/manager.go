package oauth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/models"
	"github.com/go-oauth2/oauth2/v4/server"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// This file is the seam between go-oauth2 and the Issuer. go-oauth2 keeps what it does well:
// parsing token and authorization requests, dispatching on the grant type, and the shape of
// token responses and OAuth error bodies. Everything it would decide about security is ours:
// the library's Manager (host-suffix redirect check, UUID-derived tokens kept in clear, a
// refresh grant not bound to the client, read-then-delete code redemption) is replaced by
// manager below, which only translates to the Issuer.

// ClientStore is the ent-backed go-oauth2 client store.
type ClientStore struct{ iss *Issuer }

var _ oauth2.ClientStore = (*ClientStore)(nil)

// GetByID returns the active client with the given client_id.
func (s *ClientStore) GetByID(ctx context.Context, id string) (oauth2.ClientInfo, error) {
	cl, err := s.iss.Client(ctx, id)
	if herdbook.ErrorCode(err) == herdbook.EUNAUTHORIZED {
		return nil, oerrors.ErrInvalidClient
	}
	if err != nil {
		return nil, err
	}
	return clientInfo{cl}, nil
}

// clientInfo shows a registered client to go-oauth2. The secret is never available in clear:
// VerifyPassword compares hashes.
type clientInfo struct{ c *ent.OAuthClient }

var (
	_ oauth2.ClientInfo             = clientInfo{}
	_ oauth2.ClientPasswordVerifier = clientInfo{}
)

func (c clientInfo) GetID() string     { return c.c.ClientID }
func (c clientInfo) GetSecret() string { return "" }
func (c clientInfo) IsPublic() bool    { return c.c.Public }
func (c clientInfo) GetUserID() string { return "" }

// GetDomain returns the first registered redirect URI; nothing here matches redirects by
// domain, every check is an exact comparison with the registered list.
func (c clientInfo) GetDomain() string {
	if len(c.c.RedirectUris) == 0 {
		return ""
	}
	return c.c.RedirectUris[0]
}

func (c clientInfo) VerifyPassword(secret string) bool { return CheckSecret(c.c, secret) }

// manager implements oauth2.Manager over the Issuer.
type manager struct {
	iss     *Issuer
	clients *ClientStore
}

var _ oauth2.Manager = (*manager)(nil)

func (m *manager) GetClient(ctx context.Context, clientID string) (oauth2.ClientInfo, error) {
	return m.clients.GetByID(ctx, clientID)
}

// GenerateAuthToken issues an authorization code for a request the signed-in user approved.
// The request is checked again in full, so that no path reaches a code without the exact
// redirect, scope and PKCE checks.
func (m *manager) GenerateAuthToken(ctx context.Context, rt oauth2.ResponseType, tgr *oauth2.TokenGenerateRequest) (oauth2.TokenInfo, error) {
	if rt != oauth2.Code {
		return nil, oauthErr(ErrCodeUnsupportedResponse, "response_type must be code")
	}
	userID, err := uuid.Parse(tgr.UserID)
	if err != nil {
		return nil, oerrors.ErrAccessDenied
	}
	method := string(tgr.CodeChallengeMethod)
	if tgr.CodeChallenge == "" {
		method = "" // go-oauth2 fills in "plain" when the request named no method
	}
	req, err := m.iss.CheckAuthorizeRequest(ctx, tgr.ClientID, tgr.RedirectURI, string(rt), tgr.Scope, tgr.CodeChallenge, method)
	if err != nil {
		return nil, err
	}
	code, err := m.iss.IssueCode(ctx, req, userID)
	if err != nil {
		return nil, err
	}
	ti := models.NewToken()
	ti.SetClientID(tgr.ClientID)
	ti.SetUserID(tgr.UserID)
	ti.SetRedirectURI(req.RedirectURI)
	ti.SetScope(strings.Join(req.Scopes, " "))
	ti.SetCode(code)
	ti.SetCodeCreateAt(m.iss.now())
	ti.SetCodeExpiresIn(CodeTTL)
	return ti, nil
}

// GenerateAccessToken redeems an authorization code; no other grant reaches it.
func (m *manager) GenerateAccessToken(ctx context.Context, gt oauth2.GrantType, tgr *oauth2.TokenGenerateRequest) (oauth2.TokenInfo, error) {
	if gt != oauth2.AuthorizationCode {
		return nil, oauthErr(ErrCodeUnsupportedGrantType, "grant_type %s is not supported", gt)
	}
	cl, err := m.iss.AuthenticateClient(ctx, tgr.ClientID, tgr.ClientSecret)
	if err != nil {
		return nil, err
	}
	toks, err := m.iss.RedeemCode(ctx, cl, tgr.Code, tgr.RedirectURI, tgr.CodeVerifier)
	if err != nil {
		return nil, err
	}
	return m.tokenInfo(cl, toks), nil
}

// RefreshAccessToken rotates a refresh token of the authenticated client.
func (m *manager) RefreshAccessToken(ctx context.Context, tgr *oauth2.TokenGenerateRequest) (oauth2.TokenInfo, error) {
	cl, err := m.iss.AuthenticateClient(ctx, tgr.ClientID, tgr.ClientSecret)
	if err != nil {
		return nil, err
	}
	if len(tgr.Scope) > 1024 {
		return nil, oauthErr(ErrCodeInvalidScope, "scope must be at most 1024 characters")
	}
	toks, err := m.iss.Refresh(ctx, cl, tgr.Refresh, ParseScope(tgr.Scope))
	if err != nil {
		return nil, err
	}
	return m.tokenInfo(cl, toks), nil
}

func (m *manager) tokenInfo(cl *ent.OAuthClient, t *Tokens) oauth2.TokenInfo {
	ti := models.NewToken()
	ti.SetClientID(cl.ClientID)
	ti.SetScope(strings.Join(t.Scopes, " "))
	ti.SetAccess(t.AccessToken)
	ti.SetAccessCreateAt(m.iss.now())
	ti.SetAccessExpiresIn(t.ExpiresIn)
	if t.RefreshToken != "" {
		ti.SetRefresh(t.RefreshToken)
		ti.SetRefreshCreateAt(m.iss.now())
		ti.SetRefreshExpiresIn(RefreshTokenTTL)
	}
	return ti
}

// errNotThroughLibrary answers the Manager methods that the server never routes through
// go-oauth2: revocation is /oauth/revoke and bearer tokens are resolved by Bearer.
var errNotThroughLibrary = errors.New("oauth: not served through go-oauth2")

func (m *manager) RemoveAccessToken(context.Context, string) error  { return errNotThroughLibrary }
func (m *manager) RemoveRefreshToken(context.Context, string) error { return errNotThroughLibrary }
func (m *manager) LoadAccessToken(context.Context, string) (oauth2.TokenInfo, error) {
	return nil, oerrors.ErrInvalidAccessToken
}
func (m *manager) LoadRefreshToken(context.Context, string) (oauth2.TokenInfo, error) {
	return nil, oerrors.ErrInvalidRefreshToken
}

type userIDKey struct{}

// newLibraryServer configures go-oauth2's server: only the code response type, only the
// authorization_code and refresh_token grants (password, client_credentials and implicit are
// off), client credentials from Basic or the body, tokens never read from a query string,
// and error bodies with RFC 6749 status codes.
func newLibraryServer(iss *Issuer, logger *slog.Logger) *server.Server {
	cfg := &server.Config{
		TokenType:            "Bearer",
		AllowedResponseTypes: []oauth2.ResponseType{oauth2.Code},
		AllowedGrantTypes:    []oauth2.GrantType{oauth2.AuthorizationCode, oauth2.Refreshing},
		// go-oauth2 calls a request without code_challenge_method "plain", even when it has
		// no challenge at all, and refuses it unless plain is listed. CheckAuthorizeRequest
		// runs first and in GenerateAuthToken, and accepts S256 only.
		AllowedCodeChallengeMethods: []oauth2.CodeChallengeMethod{oauth2.CodeChallengeS256, oauth2.CodeChallengePlain},
	}
	m := &manager{iss: iss, clients: &ClientStore{iss: iss}}
	srv := server.NewServer(cfg, m)
	srv.ClientInfoHandler = clientCredentials
	srv.RefreshTokenResolveHandler = func(r *http.Request) (string, error) {
		rt := r.PostForm.Get("refresh_token")
		if rt == "" {
			return "", oauthErr(ErrCodeInvalidRequest, "refresh_token is required")
		}
		return rt, nil
	}
	srv.AccessTokenResolveHandler = func(r *http.Request) (string, bool) {
		scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		return tok, ok && strings.EqualFold(scheme, "Bearer") && tok != ""
	}
	srv.UserAuthorizationHandler = func(w http.ResponseWriter, r *http.Request) (string, error) {
		id, _ := r.Context().Value(userIDKey{}).(uuid.UUID)
		if id == uuid.Nil {
			return "", oerrors.ErrAccessDenied
		}
		return id.String(), nil
	}
	srv.PasswordAuthorizationHandler = func(context.Context, string, string, string) (string, error) {
		return "", oerrors.ErrUnsupportedGrantType
	}
	srv.InternalErrorHandler = func(err error) *oerrors.Response {
		if e := AsError(err); e != nil {
			return &oerrors.Response{Error: errors.New(e.Code), Description: e.Description, StatusCode: e.Status}
		}
		if herdbook.ErrorCode(err) == herdbook.EUNAVAILABLE {
			logger.Warn("oauth: database unavailable", "err", err)
			re := &oerrors.Response{Error: errors.New(ErrCodeUnavailable), Description: herdbook.ErrorMessage(err), StatusCode: http.StatusServiceUnavailable}
			re.SetHeader("Retry-After", strconv.Itoa(httpapi.RetryAfterUnavailable))
			return re
		}
		logger.Error("oauth: internal error", "err", err)
		return &oerrors.Response{Error: oerrors.ErrServerError, Description: "Internal error.", StatusCode: http.StatusInternalServerError}
	}
	srv.ResponseErrorHandler = func(re *oerrors.Response) {
		// go-oauth2 answers 401 for several errors RFC 6749 §5.2 gives 400.
		if re.Error != nil && re.Error.Error() != ErrCodeInvalidClient && re.StatusCode == http.StatusUnauthorized {
			re.StatusCode = http.StatusBadRequest
		}
		if re.Error != nil && re.Error.Error() == ErrCodeInvalidClient {
			re.StatusCode = http.StatusUnauthorized
			re.SetHeader("WWW-Authenticate", `Basic realm="herdbook"`)
		}
	}
	return srv
}

// clientCredentials reads the client's credentials from HTTP Basic (RFC 6749 §2.3.1, with
// the form-encoding that section asks for) or from client_id and client_secret in the body.
// Using both methods at once is refused.
func clientCredentials(r *http.Request) (string, string, error) {
	if u, p, ok := r.BasicAuth(); ok {
		id, err1 := url.QueryUnescape(u)
		secret, err2 := url.QueryUnescape(p)
		if err1 != nil || err2 != nil {
			return "", "", oauthErr(ErrCodeInvalidClient, "malformed HTTP Basic credentials")
		}
		if r.PostForm.Get("client_secret") != "" {
			return "", "", oauthErr(ErrCodeInvalidRequest, "send the client secret in HTTP Basic or in the body, not both")
		}
		if bid := r.PostForm.Get("client_id"); bid != "" && bid != id {
			return "", "", oauthErr(ErrCodeInvalidRequest, "client_id in the body differs from the HTTP Basic user")
		}
		return id, secret, nil
	}
	id := r.PostForm.Get("client_id")
	if id == "" {
		return "", "", oauthErr(ErrCodeInvalidClient, "client_id is required")
	}
	return id, r.PostForm.Get("client_secret"), nil
}

// oauthLibraryCode returns the OAuth error code of one of go-oauth2's own errors, or "".
func oauthLibraryCode(err error) string {
	if _, ok := oerrors.Descriptions[err]; ok {
		return err.Error()
	}
	return ""
}

// expiresIn renders a lifetime in whole seconds for token responses.
func expiresIn(d time.Duration) int64 { return int64(d / time.Second) }
