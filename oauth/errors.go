package oauth

import (
	"errors"
	"fmt"
	"net/http"
)

// OAuth 2.0 error codes (RFC 6749 §5.2, RFC 7636, RFC 8628 §3.5) that the server answers with.
const (
	ErrCodeInvalidRequest       = "invalid_request"
	ErrCodeInvalidClient        = "invalid_client"
	ErrCodeInvalidGrant         = "invalid_grant"
	ErrCodeUnauthorizedClient   = "unauthorized_client"
	ErrCodeUnsupportedGrantType = "unsupported_grant_type"
	ErrCodeUnsupportedResponse  = "unsupported_response_type"
	ErrCodeInvalidScope         = "invalid_scope"
	ErrCodeAccessDenied         = "access_denied"
	ErrCodeServerError          = "server_error"
	ErrCodeUnavailable          = "temporarily_unavailable"
	ErrCodeAuthorizationPending = "authorization_pending"
	ErrCodeSlowDown             = "slow_down"
	ErrCodeExpiredToken         = "expired_token"
)

// Error is an OAuth protocol error: the code a stock OAuth client understands, a description
// for its developer, and the HTTP status of the token endpoint's answer. Descriptions never
// echo a secret, code or token.
type Error struct {
	Code        string
	Description string
	Status      int
}

func (e *Error) Error() string { return fmt.Sprintf("oauth: %s: %s", e.Code, e.Description) }

// oauthErr returns an *Error with the RFC 6749 status of code: 401 for invalid_client, 500
// for server_error, 503 for temporarily_unavailable, 400 for every other code.
func oauthErr(code, format string, args ...any) *Error {
	status := http.StatusBadRequest
	switch code {
	case ErrCodeInvalidClient:
		status = http.StatusUnauthorized
	case ErrCodeServerError:
		status = http.StatusInternalServerError
	case ErrCodeUnavailable:
		status = http.StatusServiceUnavailable
	}
	return &Error{Code: code, Description: fmt.Sprintf(format, args...), Status: status}
}

// AsError returns err as an *Error, or nil when it is another kind of error.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
