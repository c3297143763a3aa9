package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestPagesInFrench: a browser that prefers French gets the sign-in page and its refusal in
// French, marked lang="fr", and the page says it varies with Accept-Language; one that
// prefers English (or names neither) gets English (issue 31.5).
func TestPagesInFrench(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		fr := e.browser()
		fr.lang = "fr-FR,fr;q=0.9,en;q=0.8"
		page := fr.get("/oauth/login")
		body := string(page.Body)
		for _, want := range []string{`<html lang="fr">`, "<title>Se connecter · Herdbook</title>", `<label for="phone">Numéro de téléphone</label>`,
			`<label for="password">Mot de passe</label>`, `id="sign-in">Se connecter</button>`} {
			if !strings.Contains(body, want) {
				t.Fatalf("the French sign-in page lacks %s:\n%s", want, body)
			}
		}
		if v := page.Header.Values("Vary"); !strings.Contains(strings.Join(v, ","), "Accept-Language") {
			t.Fatalf("Vary %v, want Accept-Language", v)
		}
		wrong := fr.form(page, "/oauth/login", url.Values{"phone": {e.user.Phone}, "password": {"not the password"}, "return_to": {"/oauth/activate"}})
		if wrong.Status != http.StatusUnauthorized || !strings.Contains(string(wrong.Body), "Numéro de téléphone ou mot de passe incorrect.") {
			t.Fatalf("a wrong password in French: %d %s", wrong.Status, wrong.Body)
		}
		fr.signIn()
		act := string(fr.get("/oauth/activate").Body)
		if !strings.Contains(act, "<title>Connecter un appareil · Herdbook</title>") || !strings.Contains(act, "Connecté en tant que") {
			t.Fatalf("the French device page:\n%s", act)
		}

		en := e.browser()
		en.lang = "en-GB,en;q=0.9,fr;q=0.8"
		if body := string(en.get("/oauth/login").Body); !strings.Contains(body, `<html lang="en">`) || !strings.Contains(body, `id="sign-in">Sign in</button>`) {
			t.Fatalf("the English sign-in page:\n%s", body)
		}
	})
}
