package eid

import (
	_ "embed"
	"strconv"
	"strings"
)

// iso3166 is the list of ISO 3166-1 numeric country codes; the file names its source.
//
//go:embed iso3166-1.tsv
var iso3166 string

// countries maps each ISO 3166-1 numeric code to its alpha-2 code.
var countries = func() map[uint16]string {
	m := map[uint16]string{}
	for _, line := range strings.Split(iso3166, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		n, err := strconv.ParseUint(f[0], 10, 16)
		if err != nil || len(f) < 2 {
			panic("eid: bad line in iso3166-1.tsv: " + line)
		}
		m[uint16(n)] = f[1]
	}
	return m
}()

// IsCountry reports whether n is an ISO 3166-1 numeric country code.
func IsCountry(n uint16) bool { _, ok := countries[n]; return ok }

// Alpha2 returns the ISO 3166-1 alpha-2 code of numeric country code n, or "".
func Alpha2(n uint16) string { return countries[n] }
