// Package webhook delivers Herdbook's webhooks as the Standard Webhooks specification
// describes them: a JSON POST with the headers webhook-id, webhook-timestamp and
// webhook-signature (v1, an HMAC-SHA256 over "id.timestamp.body" keyed with the bytes of the
// endpoint's whsec_ secret). A worker leases due deliveries from the database, sends them
// and records each attempt through the service layer; any number of workers, in one
// process or many, may run against one PostgreSQL database.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
)

// The Standard Webhooks headers.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Key decodes a whsec_ secret into the HMAC key: the bytes its base64 names.
func Key(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, herdbook.WebhookSecretPrefix)
	if !ok {
		return nil, errors.New("webhook secret: must start with " + herdbook.WebhookSecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) < 24 {
		return nil, errors.New("webhook secret: must be whsec_ and at least 24 bytes in base64")
	}
	return key, nil
}

// Sign returns the webhook-signature value of a message: "v1," and the base64 HMAC-SHA256
// of "id.timestamp.body".
func Sign(key []byte, id string, at time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(at.Unix(), 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
