package ratelimit

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP determines the address of the client that sent a request, for
// use as a rate-limit key.
//
// With no trusted proxies, the client is the peer of the TCP connection
// (Request.RemoteAddr) and X-Forwarded-For is ignored, since any client can
// send that header. With trusted proxies, and only when the peer is one of
// them, X-Forwarded-For is read from right to left, skipping entries that
// are themselves trusted proxies; the first entry that is not trusted is the
// client. Entries to its left were supplied by the client and are never
// used, so a client cannot choose its own key. If every entry is trusted,
// the left-most one is the client; if an entry cannot be parsed, the nearest
// trusted hop is used instead.
//
// Addresses are returned in canonical form, with IPv4-mapped IPv6 addresses
// unmapped and zones dropped, so one client always yields one key.
type ClientIP struct {
	// TrustedProxies lists the proxies, such as load balancers, whose
	// X-Forwarded-For entries are believed. It is usually built with
	// ParseTrustedProxies.
	TrustedProxies []netip.Prefix
}

// Of returns the client address of r. If RemoteAddr is not an IP address
// (which net/http never produces for TCP connections), it is returned
// unchanged.
func (c ClientIP) Of(r *http.Request) string {
	peer, ok := parseAddr(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if !c.trusted(peer) {
		return peer.String()
	}

	client := peer
	lines := r.Header.Values("X-Forwarded-For")
	for i := len(lines) - 1; i >= 0; i-- {
		entries := strings.Split(lines[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			entry := strings.TrimSpace(entries[j])
			if entry == "" {
				continue
			}
			addr, ok := parseAddr(entry)
			if !ok {
				// A trusted proxy would have written a valid
				// address here. Fall back to the nearest hop we
				// know is real rather than trust the chain.
				return client.String()
			}
			client = addr
			if !c.trusted(addr) {
				return addr.String()
			}
		}
	}
	return client.String()
}

func (c ClientIP) trusted(addr netip.Addr) bool {
	for _, p := range c.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// parseAddr parses an IP address with or without a port, as found in
// RemoteAddr and in X-Forwarded-For entries (some proxies include the port),
// and normalises it.
func parseAddr(s string) (netip.Addr, bool) {
	var addr netip.Addr
	if ap, err := netip.ParseAddrPort(s); err == nil {
		addr = ap.Addr()
	} else {
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Addr{}, false
		}
		addr = a
	}
	return addr.Unmap().WithZone(""), true
}

// ParseTrustedProxies parses a comma-separated list of IP addresses and CIDR
// prefixes, such as "10.0.0.0/8, 192.0.2.7, 2001:db8::/32", into prefixes for
// [ClientIP.TrustedProxies]. A bare address becomes a single-address prefix.
// Blank entries are ignored, so an empty string yields no proxies. Host bits
// in a prefix are cleared, and IPv4-mapped IPv6 entries are converted to
// IPv4 to match how [ClientIP] normalises addresses.
func ParseTrustedProxies(csv string) ([]netip.Prefix, error) {
	var prefixes []netip.Prefix
	for field := range strings.SplitSeq(csv, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(field, "/") {
			var err error
			p, err = netip.ParsePrefix(field)
			if err != nil {
				return nil, fmt.Errorf("ratelimit: trusted proxy %q: %w", field, err)
			}
		} else {
			a, err := netip.ParseAddr(field)
			if err != nil {
				return nil, fmt.Errorf("ratelimit: trusted proxy %q: %w", field, err)
			}
			a = a.WithZone("")
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() {
			if p.Bits() < 96 {
				return nil, fmt.Errorf("ratelimit: trusted proxy %q: IPv4-mapped prefix shorter than /96", field)
			}
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		prefixes = append(prefixes, p.Masked())
	}
	return prefixes, nil
}
