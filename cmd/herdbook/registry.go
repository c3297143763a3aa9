package main

import (
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/cts"
	"github.com/herdbook/herdbook/registry/hitier"
	"github.com/herdbook/herdbook/registry/scheme"
)

// The registry outbox's settings (docs/registry.md, "Sending"). Sending is off until the
// operator names the adapters to send through and gives the key that seals the keepers'
// passwords; the secrets are read from the environment only, never from flags, so that they
// never show in a process listing.
type registryConfig struct {
	Send     string
	Interval time.Duration
	Key      string
	CTSURL   string
	CTSUser  string
	CTSPass  string
	HITURL   string
}

// registryAdapters names the adapters an operator may turn on, with the holding scheme each
// serves.
var registryAdapters = map[string]string{"gb_cts": scheme.GBCPH, "de_hitier": scheme.DEBNR}

func (e env) registryFlags(fs *flag.FlagSet, c *registryConfig) {
	fs.StringVar(&c.Send, "registry-send", e.getenv("HERDBOOK_REGISTRY_SEND"), "registry adapters the outbox sends statutory notices through, comma-separated: gb_cts, de_hitier; empty: sending off (HERDBOOK_REGISTRY_SEND; the key in HERDBOOK_REGISTRY_KEY)")
	c.Interval = 5 * time.Minute
	fs.Var(positiveDuration{&c.Interval}, "registry-interval", "how often the registry outbox runs, such as 5m (HERDBOOK_REGISTRY_INTERVAL)")
	e.fromEnv(fs, "registry-interval", "HERDBOOK_REGISTRY_INTERVAL")
	fs.StringVar(&c.CTSURL, "cts-url", e.or("HERDBOOK_CTS_URL", cts.DefaultURL), "GB CTS web services endpoint (DEFRA DDTS) (HERDBOOK_CTS_URL)")
	fs.StringVar(&c.HITURL, "hitier-url", e.or("HERDBOOK_HITIER_URL", hitier.DefaultURL), "HI-Tier REST base URL; its test system for trials (HERDBOOK_HITIER_URL)")
	c.Key = e.getenv("HERDBOOK_REGISTRY_KEY")
	c.CTSUser, c.CTSPass = e.getenv("HERDBOOK_CTS_SOFTWARE_USER"), e.getenv("HERDBOOK_CTS_SOFTWARE_PASSWORD")
}

// registryKey reads the key: 32 bytes as base64 or hex (openssl rand -base64 32).
func registryKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == herdbook.RegistryKeySize {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == herdbook.RegistryKeySize {
			return b, nil
		}
	}
	return nil, fmt.Errorf("HERDBOOK_REGISTRY_KEY must be %d bytes in base64 or hex, such as the output of openssl rand -base64 32", herdbook.RegistryKeySize)
}

// registries builds the outbox's configuration, nil when sending is off. A key without
// adapters keeps passwords (keepers may enter them) but sends nothing.
func (c registryConfig) registries(logger *slog.Logger) (*herdbook.Registries, error) {
	if c.Key == "" {
		if c.Send != "" {
			return nil, fmt.Errorf("--registry-send needs HERDBOOK_REGISTRY_KEY, the key the keepers' registry passwords are sealed under")
		}
		return nil, nil
	}
	key, err := registryKey(c.Key)
	if err != nil {
		return nil, err
	}
	adapters := map[string]registry.Adapter{}
	for _, name := range strings.Split(c.Send, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		sch, ok := registryAdapters[name]
		if !ok {
			names := make([]string, 0, len(registryAdapters))
			for n := range registryAdapters {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("--registry-send: unknown adapter %q; known: %s", name, strings.Join(names, ", "))
		}
		switch name {
		case "gb_cts":
			if c.CTSUser == "" || c.CTSPass == "" {
				return nil, fmt.Errorf("--registry-send gb_cts needs the software's DDTS credentials in HERDBOOK_CTS_SOFTWARE_USER and HERDBOOK_CTS_SOFTWARE_PASSWORD")
			}
			adapters[sch] = &cts.Client{URL: c.CTSURL, SoftwareUser: c.CTSUser, SoftwarePassword: c.CTSPass, ProgramName: "Herdbook",
				ProgramVersion: readBuildInfo().Version}
		case "de_hitier":
			adapters[sch] = &hitier.Client{URL: c.HITURL}
		}
	}
	r, err := herdbook.NewRegistries(key, adapters)
	if err != nil {
		return nil, err
	}
	if logger != nil {
		logger.Info("registry outbox", "adapters", c.Send, "interval", c.Interval.String(), "sending", len(adapters) > 0)
	}
	return r, nil
}
