package herdbook

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/noticesubmission"
	"github.com/herdbook/herdbook/ent/registrycredential"
	"github.com/herdbook/herdbook/registry"
)

// A holding's credentials at its registry (docs/registry.md, "Sending"): kept sealed under
// the operator's registry key, bound to the holding, never returned.

// RegistryKeySize is the length of the registry key: AES-256.
const RegistryKeySize = 32

// sealer seals and opens registry passwords under one key.
type sealer struct {
	aead cipher.AEAD
	id   string
}

func newSealer(key []byte) (*sealer, error) {
	if len(key) != RegistryKeySize {
		return nil, fmt.Errorf("the registry key must be %d bytes, not %d", RegistryKeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(key)
	return &sealer{aead: aead, id: hex.EncodeToString(sum[:8])}, nil
}

// seal returns the nonce followed by the ciphertext of secret, with the holding's id as
// additional data: a sealed password copied to another holding's row does not open.
func (k *sealer) seal(holdingID uuid.UUID, secret string) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return k.aead.Seal(nonce, nonce, []byte(secret), holdingID[:])
}

func (k *sealer) open(holdingID uuid.UUID, keyID string, sealed []byte) (string, error) {
	if keyID != k.id {
		return "", errors.New("the credentials were sealed under another registry key: the keeper must enter them again")
	}
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("the sealed credentials are damaged: the keeper must enter them again")
	}
	out, err := k.aead.Open(nil, sealed[:n], sealed[n:], holdingID[:])
	if err != nil {
		return "", errors.New("the sealed credentials do not open under the registry key: the keeper must enter them again")
	}
	return string(out), nil
}

// RegistryCredentials is what anyone may see of a holding's registry credentials: never
// the password.
type RegistryCredentials struct {
	HoldingID uuid.UUID
	// Adapter is the registry service this server sends the holding's notices through, nil
	// when the operator configured none for its scheme.
	Adapter  *string
	Username string
	// Sending is the keeper's switch; Active whether the outbox sends now (the switch on,
	// an adapter configured, the credentials usable).
	Sending   bool
	Active    bool
	LastError *string
	UpdatedAt time.Time
}

// RegistryCredentialsInput sets a holding's credentials: the first time both the user name
// and the password; later either may be left out to keep it. Sending turns the outbox on or
// off for the holding (off when left out the first time).
type RegistryCredentialsInput struct {
	Username *string
	Password *string
	Sending  *bool
}

func (s *Service) credentialsView(h *ent.Holding, c *ent.RegistryCredential) *RegistryCredentials {
	v := &RegistryCredentials{HoldingID: h.ID, Username: c.Username, Sending: c.Sending, LastError: c.LastError, UpdatedAt: c.UpdatedAt.UTC()}
	if a := s.registries.adapterFor(h.Scheme); a != nil {
		name := a.Name()
		v.Adapter = &name
		v.Active = c.Sending && c.LastError == nil && s.registries.key() != nil
	}
	return v
}

// HoldingRegistryCredentials returns what may be seen of a holding's registry credentials
// (READER of a farm on it, read:farms); ENOTFOUND when none were set.
func (s *Service) HoldingRegistryCredentials(ctx context.Context, holdingID uuid.UUID) (*RegistryCredentials, error) {
	if _, _, err := s.authorizeHolding(ctx, holdingID, RoleReader, ScopeReadFarms); err != nil {
		return nil, err
	}
	c := s.Client(ctx)
	h, err := c.Holding.Get(ctx, holdingID)
	if err != nil {
		return nil, notFound(err, "holding", holdingID)
	}
	cr, err := c.RegistryCredential.Query().Where(registrycredential.HoldingID(holdingID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, Errorf(ENOTFOUND, "holding %s has no registry credentials", holdingID)
	}
	if err != nil {
		return nil, err
	}
	return s.credentialsView(h, cr), nil
}

// SetHoldingRegistryCredentials stores a holding's credentials at its registry, the password
// sealed (OWNER of a farm on it, write:farms), and answers whether they were new. It needs
// the operator's registry key: without one no password is kept. A change clears the last
// error and sends again what waited for usable credentials.
func (s *Service) SetHoldingRegistryCredentials(ctx context.Context, holdingID uuid.UUID, in RegistryCredentialsInput) (*RegistryCredentials, bool, error) {
	v, _, err := s.authorizeHolding(ctx, holdingID, RoleOwner, ScopeWriteFarms)
	if err != nil {
		return nil, false, err
	}
	var fe fieldErrors
	if in.Username != nil {
		validateName(&fe, "username", *in.Username, 1, 200)
	}
	if in.Password != nil && (*in.Password == "" || len(*in.Password) > 1000) {
		fe.add("password", "must be 1 to 1000 characters")
	}
	if err := fe.err(); err != nil {
		return nil, false, err
	}
	if err := checkTextIn(struct {
		Username *string `json:"username"`
		Password *string `json:"password"`
	}{in.Username, in.Password}); err != nil {
		return nil, false, err
	}
	if s.registries.key() == nil && in.Password != nil {
		return nil, false, Errorf(ECONFLICT, "this server keeps no registry passwords: its operator has not configured a registry key (docs/registry.md)")
	}
	var (
		out     *RegistryCredentials
		created bool
	)
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		h, err := c.Holding.Get(ctx, holdingID)
		if err != nil {
			return notFound(err, "holding", holdingID)
		}
		cur, err := c.RegistryCredential.Query().Where(registrycredential.HoldingID(holdingID)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			var fe fieldErrors
			if in.Username == nil {
				fe.add("username", "is required the first time")
			}
			if in.Password == nil {
				fe.add("password", "is required the first time")
			}
			if err := fe.err(); err != nil {
				return err
			}
			cr := c.RegistryCredential.Create().SetHoldingID(holdingID).SetUsername(strings.TrimSpace(*in.Username)).
				SetSealedPassword(s.registries.sealer.seal(holdingID, *in.Password)).SetKeyID(s.registries.sealer.id).
				SetUpdatedBy(v.UserID)
			if in.Sending != nil {
				cr.SetSending(*in.Sending)
			}
			if cur, err = cr.Save(ctx); err != nil {
				return constraint(err, "the holding's credentials were set meanwhile")
			}
			created = true
		case err != nil:
			return err
		default:
			up := cur.Update().ClearLastError().SetUpdatedBy(v.UserID)
			if in.Username != nil {
				up.SetUsername(strings.TrimSpace(*in.Username))
			}
			if in.Password != nil {
				up.SetSealedPassword(s.registries.sealer.seal(holdingID, *in.Password)).SetKeyID(s.registries.sealer.id)
			}
			if in.Sending != nil {
				up.SetSending(*in.Sending)
			}
			if cur, err = up.Save(ctx); err != nil {
				return err
			}
		}
		// What waited for usable credentials goes again on the next pass.
		if _, err := c.NoticeSubmission.Update().Where(noticesubmission.HoldingID(holdingID),
			noticesubmission.StateEQ(noticesubmission.StatePending), noticesubmission.NextAttemptAtIsNil(),
			noticesubmission.ChannelNEQ("manual")).SetNextAttemptAt(s.nowUTC()).Save(ctx); err != nil {
			return err
		}
		out = s.credentialsView(h, cur)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, created, nil
}

// DeleteHoldingRegistryCredentials forgets a holding's registry credentials (OWNER of a farm
// on it, write:farms): the outbox stops sending its notices; what it sent stays recorded.
func (s *Service) DeleteHoldingRegistryCredentials(ctx context.Context, holdingID uuid.UUID) error {
	if _, _, err := s.authorizeHolding(ctx, holdingID, RoleOwner, ScopeWriteFarms); err != nil {
		return err
	}
	n, err := s.Client(ctx).RegistryCredential.Delete().Where(registrycredential.HoldingID(holdingID)).Exec(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return Errorf(ENOTFOUND, "holding %s has no registry credentials", holdingID)
	}
	return nil
}

// key is the sealer of the registry key, nil when none is configured.
func (r *Registries) key() *sealer {
	if r == nil {
		return nil
	}
	return r.sealer
}

// registryHolding opens a holding's credentials for an adapter.
func (s *Service) registryHolding(h *ent.Holding, c *ent.RegistryCredential) (registry.Holding, error) {
	pw, err := s.registries.sealer.open(h.ID, c.KeyID, c.SealedPassword)
	if err != nil {
		return registry.Holding{}, err
	}
	return registry.Holding{Scheme: h.Scheme, Identifier: h.Identifier, Username: c.Username, Password: pw}, nil
}
