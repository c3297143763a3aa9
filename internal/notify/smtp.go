package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
)

// TLS modes of the SMTP sender.
const (
	TLSNone     = "none"     // plain text; only for a relay on the same host or network
	TLSStartTLS = "starttls" // upgrade with STARTTLS (port 587); refuses servers without it
	TLSImplicit = "tls"      // TLS from the first byte (port 465)
)

// SMTPConfig configures the EMAIL channel.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string // with Password: AUTH PLAIN, which net/smtp only sends over TLS or to localhost
	Password string
	From     string // the sender address, e.g. "Herdbook <herdbook@example.com>"
	TLS      string // TLSNone, TLSStartTLS or TLSImplicit
	// TLSConfig overrides the TLS settings (tests use it to trust their own certificate).
	TLSConfig *tls.Config
}

// Validate checks the configuration.
func (c SMTPConfig) Validate() error {
	var problems []string
	if c.Host == "" {
		problems = append(problems, "host is required")
	}
	if c.Port <= 0 || c.Port > 65535 {
		problems = append(problems, "port must be 1 to 65535")
	}
	if _, err := mail.ParseAddress(c.From); err != nil {
		problems = append(problems, "from must be an email address")
	}
	switch c.TLS {
	case TLSNone, TLSStartTLS, TLSImplicit:
	default:
		problems = append(problems, "tls must be none, starttls or tls")
	}
	if (c.Username == "") != (c.Password == "") {
		problems = append(problems, "username and password go together")
	}
	if len(problems) > 0 {
		return fmt.Errorf("smtp: %s", strings.Join(problems, "; "))
	}
	return nil
}

// SMTP sends EMAIL notifications as text/plain mail through one SMTP server.
type SMTP struct {
	cfg  SMTPConfig
	from *mail.Address
}

var _ Sender = (*SMTP)(nil)

// NewSMTP returns the sender, or an error naming what is wrong with cfg.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	from, _ := mail.ParseAddress(cfg.From)
	return &SMTP{cfg: cfg, from: from}, nil
}

func (s *SMTP) tlsConfig() *tls.Config {
	if s.cfg.TLSConfig != nil {
		return s.cfg.TLSConfig.Clone()
	}
	return &tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12}
}

// Send delivers one message. Answers 5xx from the server (a refused recipient) are
// permanent; everything else (4xx, network) is retried.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return &herdbook.PermanentError{Err: fmt.Errorf("bad recipient address: %w", err)}
	}
	err = s.send(ctx, to, m)
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return &herdbook.PermanentError{Err: fmt.Errorf("smtp: %d %s", te.Code, te.Msg)}
	}
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	return nil
}

func (s *SMTP) send(ctx context.Context, to *mail.Address, m Message) error {
	addr := net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
	d := net.Dialer{Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// Closing the connection is how a cancelled context interrupts a blocked exchange.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if s.cfg.TLS == TLSImplicit {
		tc := tls.Client(conn, s.tlsConfig())
		if err := tc.HandshakeContext(ctx); err != nil {
			return err
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, s.cfg.Host)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("herdbook"); err != nil {
		return err
	}
	if s.cfg.TLS == TLSStartTLS {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return &herdbook.PermanentError{Err: errors.New("the server does not offer STARTTLS")}
		}
		if err := c.StartTLS(s.tlsConfig()); err != nil {
			return err
		}
	}
	if s.cfg.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", s.cfg.Username, s.cfg.Password, s.cfg.Host)); err != nil {
			return err
		}
	}
	if err := c.Mail(s.from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(to.Address); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(s.compose(to, m)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// compose writes the message: headers with the subject on one line (a line break in a farm
// or task name must not start a new header) and a quoted-printable UTF-8 body.
func (s *SMTP) compose(to *mail.Address, m Message) []byte {
	subject := strings.Join(strings.Fields(m.Subject), " ")
	var b bytes.Buffer
	hdr := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	hdr("From", s.from.String())
	hdr("To", to.String())
	hdr("Subject", mime.QEncoding.Encode("utf-8", subject))
	hdr("Date", time.Now().UTC().Format(time.RFC1123Z))
	hdr("Message-ID", "<"+m.ID.String()+"@herdbook>")
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", `text/plain; charset="utf-8"`)
	hdr("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	body := strings.ReplaceAll(m.Body, "\r\n", "\n")
	_, _ = qp.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n") + "\r\n\r\n-- \r\nHerdbook notifications: choose your channels in the app.\r\n"))
	_ = qp.Close()
	return b.Bytes()
}
