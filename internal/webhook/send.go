package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	herdbook "github.com/herdbook/herdbook"
)

// Message is one webhook on its way out.
type Message struct {
	ID     string // webhook-id: the event's id, the same for every retry and replay
	URL    string
	Secret string // the endpoint's whsec_ secret
	Body   []byte
}

// Result is the receiver's answer to one attempt.
type Result struct {
	StatusCode int           // 0 when no answer came
	Response   string        // the start of the answer's body
	Duration   time.Duration // from sending to the end of the answer
	RetryAfter time.Duration // from a Retry-After header
	Err        error         // nil for a 2xx answer
}

// Sender posts signed webhooks. Its zero value refuses private addresses and times out
// after 15 seconds.
type Sender struct {
	// AllowPrivate lets webhooks reach loopback, private and link-local addresses. Leave it
	// off where the server can reach internal services: a farm OWNER chooses the URLs.
	AllowPrivate bool
	// Timeout bounds one attempt; default 15 s (the specification suggests 15 to 30).
	Timeout time.Duration
	// Now replaces time.Now for the webhook-timestamp, for tests.
	Now func() time.Time

	client *http.Client
}

// ErrPrivateAddress is the error of an attempt refused because the URL's host is, or
// resolves to, an address webhooks may not reach.
var ErrPrivateAddress = errors.New("the address is loopback, private or link-local; webhooks may not reach it")

// httpClient builds the client once: it checks every address it connects to (after DNS,
// so a name that resolves to an internal address is refused too) and follows no
// redirects, which the specification counts as failures.
func (s *Sender) httpClient() *http.Client {
	if s.client != nil {
		return s.client
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		if s.AllowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("webhook: unexpected address %q", address)
		}
		if herdbook.PrivateAddress(ap.Addr()) {
			return ErrPrivateAddress
		}
		return nil
	}}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would connect for us and escape the address check
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	s.client = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	return s.client
}

// Send posts one signed message and reports the answer. Any status but 2xx is a failure,
// redirects included.
func (s *Sender) Send(ctx context.Context, m Message) Result {
	key, err := Key(m.Secret)
	if err != nil {
		return Result{Err: err}
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	at := now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(m.Body))
	if err != nil {
		return Result{Err: fmt.Errorf("webhook: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Herdbook-Webhooks/1")
	req.Header.Set(HeaderID, m.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(key, m.ID, at, m.Body))
	start := time.Now()
	res, err := s.httpClient().Do(req)
	if err != nil {
		// The URL may carry a secret in its query; say only what failed.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Result{Duration: time.Since(start), Err: fmt.Errorf("webhook: %w", err)}
	}
	defer res.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(res.Body, 1000))
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // lets the connection be reused
	r := Result{StatusCode: res.StatusCode, Response: strings.ToValidUTF8(string(snippet), "?"), Duration: time.Since(start),
		RetryAfter: retryAfter(res.Header.Get("Retry-After"), time.Now())}
	if res.StatusCode/100 != 2 {
		r.Err = fmt.Errorf("the receiver answered %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	return r
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
