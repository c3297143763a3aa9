package ratelimit_test

import (
	"net/http/httptest"
	"net/netip"
	"slices"
	"testing"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// TestClientIP checks client address extraction with and without trusted
// proxies, including spoofed X-Forwarded-For headers.
func TestClientIP(t *testing.T) {
	trusted, err := ratelimit.ParseTrustedProxies("10.0.0.0/8, 192.0.2.10, 2001:db8:cafe::/48")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		trusted []netip.Prefix
		remote  string
		xff     []string // one entry per header line
		want    string
	}{
		{"socket address without proxies", nil, "203.0.113.5:51234", nil, "203.0.113.5"},
		{"IPv6 socket address", nil, "[2001:db8::1]:443", nil, "2001:db8::1"},
		{"IPv4-mapped IPv6 socket address is unmapped", nil, "[::ffff:203.0.113.5]:80", nil, "203.0.113.5"},
		{"zone is dropped", nil, "[fe80::1%eth0]:80", nil, "fe80::1"},
		{"X-Forwarded-For ignored without trusted proxies", nil, "203.0.113.5:1", []string{"198.51.100.9"}, "203.0.113.5"},
		{"unparsable RemoteAddr returned as is", nil, "pipe", nil, "pipe"},
		{"RemoteAddr without port", nil, "203.0.113.5", nil, "203.0.113.5"},

		{"trusted proxy, no header", trusted, "10.1.2.3:1", nil, "10.1.2.3"},
		{"trusted proxy forwards client", trusted, "10.1.2.3:1", []string{"203.0.113.5"}, "203.0.113.5"},
		{"chain of trusted proxies is skipped", trusted, "10.1.2.3:1", []string{"203.0.113.5, 192.0.2.10, 10.9.9.9"}, "203.0.113.5"},
		{"spoofed entries left of the client are ignored", trusted, "10.1.2.3:1", []string{"1.1.1.1, 8.8.8.8, 203.0.113.5"}, "203.0.113.5"},
		{"spoofed trusted-looking entry left of the client is ignored", trusted, "10.1.2.3:1", []string{"10.0.0.1, 203.0.113.5"}, "203.0.113.5"},
		{"spoofed header from an untrusted peer is ignored", trusted, "203.0.113.5:1", []string{"198.51.100.9"}, "203.0.113.5"},
		{"spoofed trusted address from an untrusted peer is ignored", trusted, "203.0.113.5:1", []string{"10.0.0.1"}, "203.0.113.5"},
		{"several header lines read as one list", trusted, "10.1.2.3:1", []string{"1.1.1.1, 198.51.100.9", "10.0.0.7"}, "198.51.100.9"},
		{"all entries trusted yields the left-most", trusted, "10.1.2.3:1", []string{"10.0.0.1, 10.0.0.2"}, "10.0.0.1"},
		{"malformed entry falls back to the nearest trusted hop", trusted, "10.1.2.3:1", []string{"203.0.113.5, garbage, 10.0.0.2"}, "10.0.0.2"},
		{"malformed entry right after the peer falls back to the peer", trusted, "10.1.2.3:1", []string{"unknown"}, "10.1.2.3"},
		{"empty entries are skipped", trusted, "10.1.2.3:1", []string{"203.0.113.5, , 10.0.0.2,"}, "203.0.113.5"},
		{"entries with ports", trusted, "10.1.2.3:1", []string{"203.0.113.5:4711, [2001:db8:cafe::9]:443"}, "203.0.113.5"},
		{"IPv6 client behind IPv6 proxy", trusted, "[2001:db8:cafe::1]:443", []string{"2001:db8:beef::7"}, "2001:db8:beef::7"},
		{"IPv4-mapped entry is unmapped and matched", trusted, "10.1.2.3:1", []string{"203.0.113.5, ::ffff:10.0.0.2"}, "203.0.113.5"},
		{"IPv4-mapped peer matches an IPv4 trusted range", trusted, "[::ffff:10.1.2.3]:1", []string{"203.0.113.5"}, "203.0.113.5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := (ratelimit.ClientIP{TrustedProxies: tc.trusted}).Of(r); got != tc.want {
				t.Errorf("Of = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestParseTrustedProxies checks parsing of the trusted-proxy setting.
func TestParseTrustedProxies(t *testing.T) {
	cases := []struct {
		name    string
		csv     string
		want    []string
		wantErr bool
	}{
		{"empty", "", nil, false},
		{"blank entries", " , ,", nil, false},
		{"IPv4 address", "192.0.2.10", []string{"192.0.2.10/32"}, false},
		{"IPv6 address", "2001:db8::1", []string{"2001:db8::1/128"}, false},
		{"CIDRs and addresses with spaces", " 10.0.0.0/8 ,172.16.0.0/12, ::1 ", []string{"10.0.0.0/8", "172.16.0.0/12", "::1/128"}, false},
		{"host bits are cleared", "10.1.2.3/8", []string{"10.0.0.0/8"}, false},
		{"IPv4-mapped address becomes IPv4", "::ffff:192.0.2.10", []string{"192.0.2.10/32"}, false},
		{"IPv4-mapped prefix becomes IPv4", "::ffff:10.0.0.0/104", []string{"10.0.0.0/8"}, false},
		{"zone is dropped", "fe80::1%eth0", []string{"fe80::1/128"}, false},
		{"hostname is rejected", "proxy.internal", nil, true},
		{"bad prefix length", "10.0.0.0/33", nil, true},
		{"one bad entry fails the list", "10.0.0.0/8, nope", nil, true},
		{"short IPv4-mapped prefix is rejected", "::ffff:0:0/95", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ratelimit.ParseTrustedProxies(tc.csv)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var gotStr []string
			for _, p := range got {
				gotStr = append(gotStr, p.String())
			}
			if !slices.Equal(gotStr, tc.want) {
				t.Errorf("got %q, want %q", gotStr, tc.want)
			}
		})
	}
}
