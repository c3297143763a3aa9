package main

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// TestRegistryConfig: sending stays off without a key; a key is 32 bytes in base64 or hex;
// an adapter must be known and have what it needs.
func TestRegistryConfig(t *testing.T) {
	key := strings.Repeat("\x07", 32)
	b64, hx := base64.StdEncoding.EncodeToString([]byte(key)), hex.EncodeToString([]byte(key))
	for _, tc := range []struct {
		name string
		c    registryConfig
		err  string
		on   bool
	}{
		{"off", registryConfig{}, "", false},
		{"adapters without a key", registryConfig{Send: "de_hitier"}, "HERDBOOK_REGISTRY_KEY", false},
		{"short key", registryConfig{Key: "c2hvcnQ="}, "32 bytes", false},
		{"key only", registryConfig{Key: b64}, "", true},
		{"hex key, HI-Tier", registryConfig{Key: hx, Send: "de_hitier"}, "", true},
		{"unknown adapter", registryConfig{Key: b64, Send: "gb_bcms"}, "known: de_hitier, gb_cts", false},
		{"CTS without software credentials", registryConfig{Key: b64, Send: "gb_cts"}, "HERDBOOK_CTS_SOFTWARE_USER", false},
		{"CTS", registryConfig{Key: b64, Send: "gb_cts, de_hitier", CTSUser: "u", CTSPass: "p"}, "", true},
	} {
		r, err := tc.c.registries(nil)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || (r != nil) != tc.on {
			t.Errorf("%s: %v, %v", tc.name, r, err)
		}
	}
}
