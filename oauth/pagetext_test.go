package oauth

import (
	"net/http/httptest"
	"os"
	"regexp"
	"testing"
)

// TestPageLang: the pages' language is the browser's first choice by weight that they speak
// (RFC 9110 §12.5.4: Accept-Language, q weights, a primary subtag matching its regional forms).
func TestPageLang(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"":                                 "en",
		"fr":                               "fr",
		"fr-FR,fr;q=0.9,en-US;q=0.8":       "fr",
		"en-GB,en;q=0.9,fr;q=0.8":          "en",
		"de-DE,de;q=0.9,fr;q=0.7,en;q=0.5": "fr",
		"de, nl":                           "en",
		"en;q=0.2, FR-ca;q=0.8":            "fr",
		"fr;q=0, en":                       "en",
		"fr;q=oops, en":                    "en",
		"*":                                "en",
	} {
		r := httptest.NewRequest("GET", "/oauth/login", nil)
		if header != "" {
			r.Header.Set("Accept-Language", header)
		}
		if got := pageLang(r); got != want {
			t.Errorf("Accept-Language %q: %s, want %s", header, got, want)
		}
	}
}

// TestPageTextComplete: every text the pages show has its French: the templates' {{t "…"}},
// and the titles, errors, messages and formats the handlers give render and trf.
func TestPageTextComplete(t *testing.T) {
	t.Parallel()
	var texts []string
	inTemplates := regexp.MustCompile(`\{\{t "([^"]+)"\}\}`)
	for _, name := range []string{"layout", "login", "consent", "activate", "confirm", "message"} {
		b, err := webFS.ReadFile("web/" + name + ".html")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range inTemplates.FindAllSubmatch(b, -1) {
			texts = append(texts, string(m[1]))
		}
	}
	src, err := os.ReadFile("pages.go")
	if err != nil {
		t.Fatal(err)
	}
	inHandlers := regexp.MustCompile(`(?:Title|Error|Message|LinkText): "([^"]+)"|h\.message\(w, r, [\w.]+, "([^"]+)",\s*(?:"([^"]+)"|trf\(pageLang\(r\), "([^"]+)")|trf\(pageLang\(r\), "([^"]+)"`)
	for _, m := range inHandlers.FindAllStringSubmatch(string(src), -1) {
		for _, s := range m[1:] {
			if s != "" {
				texts = append(texts, s)
			}
		}
	}
	for _, s := range scopeTexts {
		texts = append(texts, s)
	}
	if len(texts) < 40 {
		t.Fatalf("found only %d texts: the patterns no longer match the pages", len(texts))
	}
	for _, lang := range pageLangs[1:] {
		for _, s := range texts {
			if _, ok := pageText[lang][s]; !ok {
				t.Errorf("%s lacks %q", lang, s)
			}
		}
	}
}
