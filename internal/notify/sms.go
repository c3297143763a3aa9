package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
)

// SMSWebhook sends SMS notifications through an HTTP provider: one POST per message with the
// JSON body {"id", "to", "body"}, the token as a bearer credential, and the notification id
// as Idempotency-Key so that a provider can drop a message sent twice after a crash.
type SMSWebhook struct {
	URL    string
	Token  string
	Client *http.Client // default: a client with a 15 s timeout
}

var _ Sender = (*SMSWebhook)(nil)

// NewSMSWebhook returns the sender, or an error when the URL is not an absolute http(s) URL.
func NewSMSWebhook(rawURL, token string) (*SMSWebhook, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("sms webhook: the URL must be an absolute http(s) URL")
	}
	return &SMSWebhook{URL: rawURL, Token: token, Client: &http.Client{Timeout: 15 * time.Second}}, nil
}

type smsBody struct {
	ID   string `json:"id"`
	To   string `json:"to"`
	Body string `json:"body"`
}

// Send posts one message. A 2xx answer is success; 4xx other than 408 and 429 is a refusal
// that retrying cannot mend (permanent); 5xx, 408, 429 and network errors are retried.
func (s *SMSWebhook) Send(ctx context.Context, m Message) error {
	body, err := json.Marshal(smsBody{ID: m.ID.String(), To: m.To, Body: m.Body})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", m.ID.String())
	if s.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.Token)
	}
	c := s.Client
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		// The URL may carry a secret in its query; say only what failed.
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return fmt.Errorf("sms webhook: %w", err)
	}
	defer res.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(res.Body, 200))
	if res.StatusCode/100 == 2 {
		return nil
	}
	err = fmt.Errorf("sms webhook answered %d: %s", res.StatusCode, strings.TrimSpace(string(snippet)))
	if res.StatusCode/100 == 4 && res.StatusCode != http.StatusRequestTimeout && res.StatusCode != http.StatusTooManyRequests {
		return &herdbook.PermanentError{Err: err}
	}
	return err
}
