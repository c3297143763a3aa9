package notify_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/notify"
)

// smtpServer is a tiny SMTP server for tests: it speaks EHLO/HELO, MAIL, RCPT, DATA, RSET,
// NOOP and QUIT over net/textproto, keeps what it receives, and answers RCPT with Reply
// when Reply returns a line (failure injection).
type smtpServer struct {
	ln    net.Listener
	mu    sync.Mutex
	mails []mailMsg
	// Reply, when set, may refuse a recipient with a reply line such as "451 4.3.0 busy".
	Reply func(rcpt string) string
}

type mailMsg struct {
	From, To string
	Data     string
}

func newSMTPServer(tb testing.TB) *smtpServer {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &smtpServer{ln: ln}
	go s.serve()
	tb.Cleanup(func() { ln.Close() })
	return s
}

func (s *smtpServer) config() notify.SMTPConfig {
	addr := s.ln.Addr().(*net.TCPAddr)
	return notify.SMTPConfig{Host: "127.0.0.1", Port: addr.Port, From: "Herdbook <herdbook@example.test>", TLS: notify.TLSNone}
}

func (s *smtpServer) sender(tb testing.TB) *notify.SMTP {
	tb.Helper()
	snd, err := notify.NewSMTP(s.config())
	if err != nil {
		tb.Fatal(err)
	}
	return snd
}

func (s *smtpServer) received() []mailMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mailMsg(nil), s.mails...)
}

func (s *smtpServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.session(c)
	}
}

func (s *smtpServer) session(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	tp := textproto.NewConn(c)
	reply := func(line string) { _ = tp.PrintfLine("%s", line) }
	reply("220 test.local ESMTP ready")
	var from, to string
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			reply("250 test.local")
		case "MAIL":
			from = addrOf(arg)
			reply("250 2.1.0 ok")
		case "RCPT":
			to = addrOf(arg)
			if s.Reply != nil {
				if r := s.Reply(to); r != "" {
					reply(r)
					continue
				}
			}
			reply("250 2.1.5 ok")
		case "DATA":
			reply("354 go ahead")
			data, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.mails = append(s.mails, mailMsg{From: from, To: to, Data: string(data)})
			s.mu.Unlock()
			reply("250 2.0.0 queued")
		case "RSET", "NOOP":
			reply("250 ok")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 5.5.2 command not implemented")
		}
	}
}

func addrOf(arg string) string {
	_, a, _ := strings.Cut(arg, ":")
	a = strings.TrimSpace(a)
	if i := strings.IndexByte(a, ' '); i >= 0 {
		a = a[:i]
	}
	return strings.Trim(a, "<>")
}

// smsProvider is an httptest SMS webhook that keeps what it receives and answers with
// Status(call number) (200 when Status is nil).
type smsProvider struct {
	*httptest.Server
	mu     sync.Mutex
	got    []smsGot
	Status func(call int) int
}

type smsGot struct {
	ID, To, Body, Auth, IdempotencyKey string
}

func newSMSProvider(tb testing.TB) *smsProvider {
	p := &smsProvider{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b struct{ ID, To, Body string }
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &b)
		p.mu.Lock()
		p.got = append(p.got, smsGot{b.ID, b.To, b.Body, r.Header.Get("Authorization"), r.Header.Get("Idempotency-Key")})
		n := len(p.got)
		p.mu.Unlock()
		status := http.StatusOK
		if p.Status != nil {
			status = p.Status(n)
		}
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = io.WriteString(w, "provider unavailable")
		}
	}))
	tb.Cleanup(p.Close)
	return p
}

func (p *smsProvider) calls() []smsGot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]smsGot(nil), p.got...)
}

func (p *smsProvider) sender(tb testing.TB) *notify.SMSWebhook {
	tb.Helper()
	s, err := notify.NewSMSWebhook(p.URL+"/send", "test-token")
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// clock is a settable time source for the service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(rfc3339 string) *clock {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		panic(err)
	}
	return &clock{t: t}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// mustTasks creates n TODO tasks due on day for the farm, each for the given animals,
// straight in the database (the birth-approval path is tested elsewhere).
func mustTasks(tb testing.TB, c *ent.Client, farmID uuid.UUID, name string, day time.Time, n int, animals ...uuid.UUID) {
	tb.Helper()
	ctx := context.Background()
	ev, err := c.BirthEvent.Create().SetFarmID(farmID).SetDamID(uuid.New()).SetBirthDate(day.Format(time.DateOnly)).
		SetPreviewID(uuid.New()).SetRequestID(uuid.NewString()).SetSettingsVersion(0).SetProtocolVersion(0).Save(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	herdbooktest.InTx(tb, c, func(ctx context.Context, c *ent.Client) error {
		for done := 0; done < n; {
			k := min(n-done, 200)
			b := make([]*ent.FarmTaskCreate, k)
			var links []*ent.FarmTaskAnimalCreate
			for i := range b {
				id := uuid.New()
				b[i] = c.FarmTask.Create().SetID(id).SetFarmID(farmID).SetBirthEventID(ev.ID).SetName(name).SetDueDate(day).
					SetProtocolVersion(0).SetStep(done + i)
				for _, a := range animals {
					links = append(links, c.FarmTaskAnimal.Create().SetFarmTaskID(id).SetAnimalID(a).SetFarmID(farmID))
				}
			}
			if err := c.FarmTask.CreateBulk(b...).Exec(ctx); err != nil {
				return err
			}
			if len(links) > 0 {
				if err := c.FarmTaskAnimal.CreateBulk(links...).Exec(ctx); err != nil {
					return err
				}
			}
			done += k
		}
		return nil
	})
}

// byStatus counts a farm's notifications per type and status.
func byStatus(tb testing.TB, c *ent.Client, farmID uuid.UUID) map[string]int {
	tb.Helper()
	ns, err := c.Notification.Query().Where(notification.FarmID(farmID)).All(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]int{}
	for _, n := range ns {
		out[string(n.Type)+" "+string(n.Status)]++
	}
	return out
}
