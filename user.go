package herdbook

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/user"
)

// UserInput creates a user.
type UserInput struct {
	FullName         *string
	PhoneNumberLocal string
	Password         string
}

var phonePattern = regexp.MustCompile(`^\+?[0-9][0-9 ()-]{3,38}$`)

// NormalizePhone strips the separators people type, so that "+47 912 34 567" and
// "+4791234567" name the same user.
func NormalizePhone(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '(', ')':
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// Validate checks a UserInput.
func (in UserInput) Validate() error {
	var fe fieldErrors
	if !phonePattern.MatchString(strings.TrimSpace(in.PhoneNumberLocal)) {
		fe.add("phone_number_local", "must be a phone number of digits, optionally starting with +")
	}
	fe.line("password", in.Password)
	if in.Password != "" && len(in.Password) < 10 {
		fe.add("password", "must be at least 10 characters")
	}
	if len(in.Password) > 72 {
		fe.add("password", "must be at most 72 bytes")
	}
	if in.FullName != nil {
		validateName(&fe, "full_name", *in.FullName, 1, 200)
	}
	return fe.err()
}

// CreateUser registers a user. It is an administrative operation: there is no self-serve sign-up.
func (s *Service) CreateUser(ctx context.Context, in UserInput) (*ent.User, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	c := s.Client(ctx).User.Create().
		SetNillableFullName(in.FullName).
		SetPhoneNumberLocal(NormalizePhone(in.PhoneNumberLocal))
	if in.Password != "" {
		h, err := bcrypt.GenerateFromPassword([]byte(in.Password), bcrypt.DefaultCost)
		if err != nil {
			return nil, err
		}
		c.SetPasswordHash(string(h))
	}
	u, err := c.Save(ctx)
	return u, constraint(err, "a user with this phone number already exists")
}

// UserByPhone finds an active user by phone number.
func (s *Service) UserByPhone(ctx context.Context, phone string) (*ent.User, error) {
	if err := CheckText("phone", phone); err != nil {
		return nil, err
	}
	u, err := s.Client(ctx).User.Query().Where(user.PhoneNumberLocal(NormalizePhone(phone))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, Errorf(ENOTFOUND, "no user with phone number %s", phone)
	}
	return u, err
}

// CheckPassword verifies a user's password in constant time and returns the user. Unknown
// phone numbers cost the same bcrypt work, so timing does not reveal which numbers exist.
func (s *Service) CheckPassword(ctx context.Context, phone, password string) (*ent.User, error) {
	u, err := s.UserByPhone(ctx, phone)
	hash := dummyHash()
	if err == nil && u.PasswordHash != "" {
		hash = []byte(u.PasswordHash)
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || err != nil || u.PasswordHash == "" {
		return nil, Errorf(EUNAUTHORIZED, "wrong phone number or password")
	}
	return u, nil
}

// dummyHash is compared against when the user is unknown; made once, on first use, so that
// start-up does not pay for it.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a real password"), bcrypt.DefaultCost)
	return h
})

// Me returns the viewer's own user.
func (s *Service) Me(ctx context.Context) (*ent.User, error) {
	v, err := authenticate(ctx)
	if err != nil {
		return nil, err
	}
	u, err := s.Client(ctx).User.Get(ctx, v.UserID)
	return u, notFound(err, "user", v.UserID)
}

// UserByID returns an active user, for administrative commands.
func (s *Service) UserByID(ctx context.Context, id uuid.UUID) (*ent.User, error) {
	u, err := s.Client(ctx).User.Get(ctx, id)
	return u, notFound(err, "user", id)
}
