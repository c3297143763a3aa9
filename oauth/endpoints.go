package oauth

import (
	"net/http"
	"strings"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// token is POST /oauth/token: the authorization_code and refresh_token grants through
// go-oauth2, and the device_code grant with RFC 8628's errors so that stock clients work.
// Errors are OAuth error objects ({error, error_description}); every answer is no-store.
func (h *Handler) token(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	vals, err := readBody(w, r)
	if err != nil {
		h.oauthError(w, r, oauthErr(ErrCodeInvalidRequest, "%s", strings.Join(fieldMessages(err), "; ")))
		return
	}
	if err := credentialsInQuery(r); err != nil {
		h.oauthError(w, r, err)
		return
	}
	switch gt := vals.Get("grant_type"); gt {
	case "authorization_code":
		if vals.Get("code") == "" || vals.Get("redirect_uri") == "" {
			h.oauthError(w, r, oauthErr(ErrCodeInvalidRequest, "the authorization_code grant requires code and redirect_uri"))
			return
		}
		_ = h.lib.HandleTokenRequest(w, r)
	case "refresh_token":
		if vals.Get("refresh_token") == "" {
			h.oauthError(w, r, oauthErr(ErrCodeInvalidRequest, "the refresh_token grant requires refresh_token"))
			return
		}
		_ = h.lib.HandleTokenRequest(w, r)
	case DeviceGrantType:
		code := vals.Get("device_code")
		if code == "" || len(code) > 128 {
			h.oauthError(w, r, oauthErr(ErrCodeInvalidRequest, "device_code must be 1 to 128 characters"))
			return
		}
		id, secret, err := clientCredentials(r)
		if err != nil {
			h.oauthError(w, r, err)
			return
		}
		cl, err := h.iss.AuthenticateClient(r.Context(), id, secret)
		if err != nil {
			h.oauthError(w, r, err)
			return
		}
		toks, err := h.iss.PollDevice(r.Context(), cl, code)
		if err != nil {
			h.oauthError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, tokenBody(toks))
	case "":
		h.oauthError(w, r, oauthErr(ErrCodeInvalidRequest, "grant_type is required"))
	default:
		h.oauthError(w, r, oauthErr(ErrCodeUnsupportedGrantType, "grant_type must be authorization_code, refresh_token or %s", DeviceGrantType))
	}
}

// tokenBody is the shape of a successful token answer (RFC 6749 §5.1).
func tokenBody(t *Tokens) map[string]any {
	out := map[string]any{
		"access_token": t.AccessToken,
		"token_type":   "Bearer",
		"expires_in":   expiresIn(t.ExpiresIn),
		"scope":        strings.Join(t.Scopes, " "),
	}
	if t.RefreshToken != "" {
		out["refresh_token"] = t.RefreshToken
	}
	return out
}

// oauthError answers with an OAuth error object. An outage of the database is
// temporarily_unavailable (503, with Retry-After); anything else but an *Error is internal:
// logged, and shown only as server_error.
func (h *Handler) oauthError(w http.ResponseWriter, r *http.Request, err error) {
	e := AsError(err)
	switch {
	case e != nil:
	case herdbook.ErrorCode(err) == herdbook.EUNAVAILABLE:
		httpapi.Prepare(w, r, err)
		e = oauthErr(ErrCodeUnavailable, "%s", herdbook.ErrorMessage(err))
	default:
		h.cfg.Logger.ErrorContext(r.Context(), "oauth: internal error", "err", err, "path", r.URL.Path, "request_id", httpapi.RequestID(r.Context()))
		e = oauthErr(ErrCodeServerError, "Internal error.")
	}
	if e.Code == ErrCodeInvalidClient {
		w.Header().Set("WWW-Authenticate", `Basic realm="herdbook"`)
	}
	noStore(w)
	httpapi.WriteJSON(w, e.Status, map[string]string{"error": e.Code, "error_description": e.Description})
}

// fieldMessages renders the field problems of a validation error as "field: message".
func fieldMessages(err error) []string {
	var out []string
	for _, f := range herdbook.ErrorFields(err) {
		out = append(out, f.Field+": "+f.Message)
	}
	if len(out) == 0 {
		out = append(out, herdbook.ErrorMessage(err))
	}
	return out
}

// device is POST /oauth/device (RFC 8628 §3.1). Errors use the envelope.
func (h *Handler) device(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	vals, err := readBody(w, r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe []herdbook.FieldError
	checkLen(&fe, vals, "client_id", 255, true)
	checkLen(&fe, vals, "scope", 1024, false)
	if err := herdbook.Invalid(fe...); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	ds, err := h.iss.StartDevice(r.Context(), vals.Get("client_id"), vals.Get("scope"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	verify := h.cfg.BaseURL + "/oauth/activate"
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{
		"device_code":               ds.DeviceCode,
		"user_code":                 ds.UserCode,
		"verification_uri":          verify,
		"verification_uri_complete": verify + "?user_code=" + ds.UserCode,
		"expires_in":                expiresIn(ds.ExpiresIn),
		"interval":                  ds.Interval,
	})
}

// deviceToken is POST /oauth/device/token with SPEC.md's own answers: 400 {error,
// error_description} while the user has not decided (authorization_pending, slow_down); 400
// envelope for a malformed body; 401 envelope (AuthError) for a device code that is invalid,
// consumed, expired, denied, issued to another client or carries scopes the client may no
// longer have.
func (h *Handler) deviceToken(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	vals, err := readBody(w, r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe []herdbook.FieldError
	if gt := vals.Get("grant_type"); gt == "" {
		fe = append(fe, herdbook.FieldError{Field: "grant_type", Message: "is required"})
	} else if gt != DeviceGrantType {
		fe = append(fe, herdbook.FieldError{Field: "grant_type", Message: "must be " + DeviceGrantType})
	}
	checkLen(&fe, vals, "device_code", 128, true)
	checkLen(&fe, vals, "client_id", 255, true)
	if err := herdbook.Invalid(fe...); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	cl, err := h.iss.Client(r.Context(), vals.Get("client_id"))
	if herdbook.ErrorCode(err) == herdbook.EUNAUTHORIZED {
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EDEVICECODE, "the device code is invalid"))
		return
	}
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	// The SPEC's body has no client secret; one that is sent must be right.
	if s := vals.Get("client_secret"); s != "" && (cl.Public || !CheckSecret(cl, s)) {
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EUNAUTHORIZED, "client authentication failed"))
		return
	}
	toks, err := h.iss.PollDevice(r.Context(), cl, vals.Get("device_code"))
	if e := AsError(err); e != nil {
		switch e.Code {
		case ErrCodeAuthorizationPending, ErrCodeSlowDown:
			httpapi.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": e.Code, "error_description": e.Description})
		default:
			httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EDEVICECODE, "%s", e.Description))
		}
		return
	}
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, tokenBody(toks))
}

// revoke is POST /oauth/revoke (RFC 7009 with SPEC.md's body and answer): it revokes the
// token when it belongs to the named client and answers {revoked: bool}.
func (h *Handler) revoke(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	vals, err := readBody(w, r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe []herdbook.FieldError
	checkLen(&fe, vals, "token", 2048, true)
	if u, _, ok := r.BasicAuth(); !ok || u == "" {
		checkLen(&fe, vals, "client_id", 255, true)
	}
	if err := herdbook.Invalid(fe...); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	id, secret, err := clientCredentials(r)
	if err != nil {
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EUNAUTHORIZED, "%s", AsError(err).Description))
		return
	}
	cl, err := h.iss.Client(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	// SPEC.md's body names the client without a secret; a secret that is sent must be right.
	if secret != "" && (cl.Public || !CheckSecret(cl, secret)) {
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EUNAUTHORIZED, "client authentication failed"))
		return
	}
	revoked, err := h.iss.Revoke(r.Context(), cl, vals.Get("token"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	// The web app signs out by revoking its refresh token from the page. Its sign-in to the
	// OAuth pages ends with it, or the next sign-in would go through without a password.
	if IsFirstParty(cl) && h.sameOrigin(r) {
		if raw := cookieValue(r, h.cookieName("hb_session")); raw != "" {
			if err := h.iss.EndSession(r.Context(), raw); err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
			h.setCookie(w, "hb_session", "", -1, http.SameSiteLaxMode)
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]bool{"revoked": revoked})
}
