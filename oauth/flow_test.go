package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestStockClient drives the server with golang.org/x/oauth2, configured from the metadata
// document alone: authorization code with S256, exchange, refresh; then the device flow.
func TestStockClient(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		ep := e.endpoint()
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second})

		t.Run("AuthorizationCodeWithPKCE", func(t *testing.T) {
			conf := &oauth2.Config{ClientID: e.public, Endpoint: ep, RedirectURL: e.redirect, Scopes: []string{"read:farms", "write:farms"}}
			v := oauth2.GenerateVerifier()
			authURL, err := url.Parse(conf.AuthCodeURL("state-xyz", oauth2.S256ChallengeOption(v)))
			if err != nil {
				t.Fatal(err)
			}
			if authURL.Query().Get("code_challenge_method") != "S256" {
				t.Fatalf("x/oauth2 sent no S256 challenge: %s", authURL)
			}
			loc := e.browser().authorize(authURL.Query())
			if loc.Query().Get("state") != "state-xyz" || loc.Query().Get("code") == "" {
				t.Fatalf("redirect back = %s", loc)
			}
			tok, err := conf.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(v))
			if err != nil {
				t.Fatal(err)
			}
			if tok.TokenType != "Bearer" || tok.RefreshToken == "" || tok.Extra("scope") != "read:farms write:farms" {
				t.Fatalf("token = %+v scope %v", tok, tok.Extra("scope"))
			}
			if st := e.apiStatus(tok.AccessToken); st != http.StatusOK {
				t.Fatalf("the access token does not work: %d", st)
			}

			// Refresh through the token source, with the access token marked expired.
			old := *tok
			tok.Expiry = time.Now().Add(-time.Minute)
			fresh, err := conf.TokenSource(ctx, tok).Token()
			if err != nil {
				t.Fatal(err)
			}
			if fresh.AccessToken == old.AccessToken || fresh.RefreshToken == old.RefreshToken || fresh.RefreshToken == "" {
				t.Fatal("refresh did not rotate both tokens")
			}
			if st := e.apiStatus(fresh.AccessToken); st != http.StatusOK {
				t.Fatalf("the refreshed access token does not work: %d", st)
			}
		})

		t.Run("ConfidentialClientWithBasicAuth", func(t *testing.T) {
			conf := &oauth2.Config{ClientID: e.conf, ClientSecret: e.secret, Endpoint: ep, RedirectURL: e.redirect, Scopes: []string{"read:farms"}}
			v := oauth2.GenerateVerifier()
			authURL, _ := url.Parse(conf.AuthCodeURL("s", oauth2.S256ChallengeOption(v)))
			loc := e.browser().authorize(authURL.Query())
			tok, err := conf.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(v))
			if err != nil {
				t.Fatal(err)
			}
			tok.Expiry = time.Now().Add(-time.Minute)
			if _, err := conf.TokenSource(ctx, tok).Token(); err != nil {
				t.Fatal(err)
			}
		})

		t.Run("DeviceFlow", func(t *testing.T) {
			conf := &oauth2.Config{ClientID: e.public, Endpoint: ep, Scopes: []string{"read:farms"}}
			da, err := conf.DeviceAuth(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if da.Interval != 5 || time.Until(da.Expiry) < 890*time.Second || da.VerificationURIComplete == "" {
				t.Fatalf("device answer = %+v", da)
			}
			// Approval comes while the client waits for its first poll; authorization_pending
			// and slow_down over the wire are covered in TestDeviceToken.
			if res := e.approve(da.UserCode, true); res.Status != http.StatusOK {
				t.Fatalf("approve: %d %s", res.Status, res.Body)
			}
			tok, err := conf.DeviceAccessToken(ctx, da)
			if err != nil {
				t.Fatal(err)
			}
			if tok.AccessToken == "" || tok.RefreshToken == "" || tok.Extra("scope") != "read:farms" {
				t.Fatalf("device token = %+v", tok)
			}
			if st := e.apiStatus(tok.AccessToken); st != http.StatusOK {
				t.Fatalf("the device token does not work: %d", st)
			}
		})
	})
}
