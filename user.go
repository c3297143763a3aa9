package herdbook

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/nyaruka/phonenumbers"
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

// DefaultPhoneRegion is the region whose national phone numbers the service understands
// unless WithPhoneRegion names another: with it, "91234567" and "004791234567" are the
// same number as "+4791234567". Norway, because the product's first farms are there.
const DefaultPhoneRegion = "NO"

// WithPhoneRegion sets the region (ISO 3166 code, such as NO or SE) that numbers typed
// without a country code, or with the region's international prefix, are read in. Check
// the code with PhoneRegionKnown first; an unknown one reads only numbers starting with +.
func WithPhoneRegion(region string) Option {
	return func(s *Service) { s.phoneRegion = strings.ToUpper(strings.TrimSpace(region)) }
}

// PhoneRegionKnown reports whether phone numbers can be read in region.
func PhoneRegionKnown(region string) bool {
	return phonenumbers.GetSupportedRegions()[strings.ToUpper(strings.TrimSpace(region))]
}

// ParsePhone returns phone in E.164 form ("+4791234567"), reading it as a person in region
// would dial it: separators, the national form and the region's international prefix ("00")
// are understood. ok is false when phone is not a possible phone number or names an
// extension, which no sign-in name has.
func ParsePhone(phone, region string) (e164 string, ok bool) {
	if len(phone) > 64 {
		return "", false
	}
	n, err := phonenumbers.Parse(phone, strings.ToUpper(region))
	if err != nil || !phonenumbers.IsPossibleNumber(n) || n.GetExtension() != "" {
		return "", false
	}
	return phonenumbers.Format(n, phonenumbers.E164), true
}

// stripPhone removes the separators people type. It was the whole normalisation before
// numbers were parsed, so users stored then may hold a number in this form.
func stripPhone(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '(', ')':
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// NormalizePhone returns the stored form of a phone number typed by a person: E.164 read in
// the service's region, or, for text that is no phone number, the text without separators,
// so that it still makes a stable key (of a rate limit, say) but names no user.
func (s *Service) NormalizePhone(phone string) string {
	if e164, ok := ParsePhone(phone, s.phoneRegion); ok {
		return e164
	}
	return stripPhone(phone)
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
	phone, ok := ParsePhone(in.PhoneNumberLocal, s.phoneRegion)
	if !ok {
		return nil, Invalid(FieldError{Field: "phone_number_local", Message: "must be a phone number: +CC and digits, or a national number of region " + s.phoneRegion})
	}
	c := s.Client(ctx).User.Create().
		SetNillableFullName(in.FullName).
		SetPhoneNumberLocal(phone)
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

// UserByPhone finds an active user by phone number, in any form ParsePhone reads in the
// service's region. A user stored before numbers were parsed is found by the number as it
// was stored.
func (s *Service) UserByPhone(ctx context.Context, phone string) (*ent.User, error) {
	if err := CheckText("phone", phone); err != nil {
		return nil, err
	}
	forms := []string{s.NormalizePhone(phone)}
	if legacy := stripPhone(phone); legacy != forms[0] {
		forms = append(forms, legacy)
	}
	users, err := s.Client(ctx).User.Query().Where(user.PhoneNumberLocalIn(forms...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, form := range forms {
		for _, u := range users {
			if u.PhoneNumberLocal == form {
				return u, nil
			}
		}
	}
	return nil, Errorf(ENOTFOUND, "no user with phone number %s", phone)
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
