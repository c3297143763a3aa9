package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/webhook"
)

// adminWebhookTest posts a signed test webhook to a URL at once and prints the receiver's
// answer: how an operator or an integrator checks that an endpoint is reachable and
// verifies Herdbook's signatures. It signs with the secret of the farm's webhook with that
// URL, or with --secret. Nothing is stored.
func (e env) adminWebhookTest(ctx context.Context, args []string) error {
	a := e.newAdmin("admin webhook test")
	e.webhookFlags(a.fs, &a.c)
	farm := a.fs.String("farm", "", "farm id (required)")
	target := a.fs.String("url", "", "the receiver's URL (required); by default signed with the secret of the farm's webhook with this URL")
	secret := a.fs.String("secret", "", "a whsec_ secret to sign with instead")
	timeout := a.fs.Duration("timeout", 15*time.Second, "how long to wait for the answer")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	farmID, err := uuid.Parse(*farm)
	if err != nil {
		return fmt.Errorf("--farm must be a farm id (UUID)")
	}
	if err := herdbook.ValidateWebhookURL("--url", *target, a.c.WebhookAllowPrivate); err != nil {
		return err
	}
	var webhookID *uuid.UUID
	if *secret == "" {
		ep, err := svc.WebhookByURL(ctx, farmID, *target)
		if err != nil {
			return fmt.Errorf("%w; register the webhook first, or pass --secret", err)
		}
		*secret, webhookID = ep.Secret, &ep.ID
	}
	now := time.Now().UTC()
	body, err := json.Marshal(map[string]any{"type": "webhook.test", "timestamp": now,
		"data": map[string]any{"farm_id": farmID, "message": "A test webhook from Herdbook: the signature verifies with your secret."}})
	if err != nil {
		return err
	}
	msg := webhook.Message{ID: "test_" + uuid.NewString(), URL: *target, Secret: *secret, Body: body}
	s := &webhook.Sender{AllowPrivate: a.c.WebhookAllowPrivate, Timeout: *timeout}
	r := s.Send(ctx, msg)
	out := map[string]any{"url": *target, "webhook": webhookID, "webhook_id": msg.ID, "status_code": r.StatusCode,
		"duration_ms": r.Duration.Milliseconds(), "response": r.Response, "error": nil}
	if r.Err != nil {
		out["error"] = r.Err.Error()
		_ = a.print(out, "test webhook %s to %s: failed after %s: %v\n%s", msg.ID, *target, r.Duration.Round(time.Millisecond), r.Err, r.Response)
		return fmt.Errorf("the receiver did not accept the test webhook")
	}
	return a.print(out, "test webhook %s to %s: %d in %s\n%s", msg.ID, *target, r.StatusCode, r.Duration.Round(time.Millisecond), r.Response)
}
