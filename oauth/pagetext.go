package oauth

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The sign-in, consent and device pages speak the browser's language, as the web app does
// (issue 31.5): English, or French when the browser prefers it (Accept-Language). A text is
// written in English in the templates ({{t "…"}}) and the handlers, and that English is its
// key in the other languages' catalogues, as gettext's msgid is; a text a catalogue lacks
// stays English (TestPageTextComplete checks the templates' texts all have their French).

// pageLangs are the pages' languages, the default first.
var pageLangs = []string{"en", "fr"}

// pageText is each language's texts other than English, by their English.
var pageText = map[string]map[string]string{
	"fr": {
		// layout.html
		"Signed in as": "Connecté en tant que",
		"Sign out":     "Se déconnecter",
		"Sign in":      "Se connecter",
		"Sign in with the phone number and password of your Herdbook account.": "Connectez-vous avec le numéro de téléphone et le mot de passe de votre compte Herdbook.",
		"Phone number":                    "Numéro de téléphone",
		"Password":                        "Mot de passe",
		"Wrong phone number or password.": "Numéro de téléphone ou mot de passe incorrect.",
		// consent.html
		"Allow access?": "Autoriser l’accès ?",
		"asks for access to your Herdbook account. It will be able to:":                                                           "demande l’accès à votre compte Herdbook. Elle pourra :",
		"Access covers only the farms you are already a member of, with the role you have there. After you decide you go back to": "L’accès ne couvre que les exploitations dont vous êtes déjà membre, avec le rôle que vous y avez. Après votre choix, vous retournez à",
		"Allow": "Autoriser",
		"Deny":  "Refuser",
		// activate.html, confirm.html
		"Connect a device": "Connecter un appareil",
		"Connect %s?":      "Connecter %s ?",
		"Enter the code shown on your device. It looks like": "Saisissez le code affiché sur votre appareil. Il ressemble à",
		"Device code": "Code de l’appareil",
		"Continue":    "Continuer",
		"Check that your device shows this code:":                                      "Vérifiez que votre appareil affiche ce code :",
		"on that device asks for access to your Herdbook account. It will be able to:": "sur cet appareil demande l’accès à votre compte Herdbook. Elle pourra :",
		"Approve": "Approuver",
		// what each scope lets an application do
		"see your farms and who is a member":                         "voir vos exploitations et leurs membres",
		"create, change and delete farms":                            "créer, modifier et supprimer des exploitations",
		"see records, notifications, files, tasks and birth history": "voir les registres, notifications, fichiers, tâches et l’historique des naissances",
		"create, change and delete records, files and tasks":         "créer, modifier et supprimer des registres, fichiers et tâches",
		"see animals and groups":                                     "voir les animaux et les lots",
		"create and change animals and groups":                       "créer et modifier des animaux et des lots",
		// messages
		"Try again in a moment": "Réessayez dans un instant",
		"Herdbook cannot reach its database right now. Please try again in a few seconds.": "Herdbook ne peut pas joindre sa base de données pour le moment. Réessayez dans quelques secondes.",
		"Something went wrong": "Un problème est survenu",
		"Something went wrong on our side. Please try again in a moment.": "Un problème est survenu de notre côté. Réessayez dans un instant.",
		"Too many attempts": "Trop de tentatives",
		"Too many attempts. For your safety, wait %d minutes before you try again.": "Trop de tentatives. Pour votre sécurité, attendez %d minutes avant de réessayer.",
		"Page expired": "Page expirée",
		"This page expired or did not come from Herdbook. Go back, reload the page and try again. Cookies must be enabled.": "Cette page a expiré ou ne vient pas de Herdbook. Revenez en arrière, rechargez la page et réessayez. Les cookies doivent être activés.",
		"This page expired. Go back, reload the page and try again.":                                                        "Cette page a expiré. Revenez en arrière, rechargez la page et réessayez.",
		"This page expired or did not come from Herdbook. Go back to the application and start again.":                      "Cette page a expiré ou ne vient pas de Herdbook. Retournez à l’application et recommencez.",
		"This page expired or did not come from Herdbook. Go back, reload the page and try again.":                          "Cette page a expiré ou ne vient pas de Herdbook. Revenez en arrière, rechargez la page et réessayez.",
		"This link is not valid": "Ce lien n’est pas valide",
		"The application sent you here with a request Herdbook cannot accept: its state %s. Tell the application's developer; you will not be sent back to it.": "L’application vous a envoyé ici avec une demande que Herdbook ne peut pas accepter : son paramètre state %s. Prévenez le développeur de l’application ; vous n’y serez pas renvoyé.",
		"The application sent you here with a request Herdbook cannot accept: %s. Tell the application's developer; you will not be sent back to it.":           "L’application vous a envoyé ici avec une demande que Herdbook ne peut pas accepter : %s. Prévenez le développeur de l’application ; vous n’y serez pas renvoyé.",
		"The application sent you here with a request Herdbook cannot accept.":                                                                                  "L’application vous a envoyé ici avec une demande que Herdbook ne peut pas accepter.",
		"Choose Allow or Deny":                "Choisissez Autoriser ou Refuser",
		"Go back and choose Allow or Deny.":   "Revenez en arrière et choisissez Autoriser ou Refuser.",
		"Choose Approve or Deny":              "Choisissez Approuver ou Refuser",
		"Go back and choose Approve or Deny.": "Revenez en arrière et choisissez Approuver ou Refuser.",
		"Device connected":                    "Appareil connecté",
		"Your device is connected. You can close this page and go back to it.": "Votre appareil est connecté. Vous pouvez fermer cette page et y retourner.",
		"Request denied": "Demande refusée",
		"You denied the request. The device gets no access.": "Vous avez refusé la demande. L’appareil n’a aucun accès.",
	},
}

// pageLang is the language of the pages for r: the first of the browser's Accept-Language
// choices, by weight, that the pages speak; English when none is.
func pageLang(r *http.Request) string {
	type choice struct {
		lang string
		q    float64
	}
	var cs []choice
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			q = f
		}
		primary, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(tag)), "-")
		if q > 0 && slices.Contains(pageLangs, primary) {
			cs = append(cs, choice{primary, q})
		}
	}
	// Stable: of equal weights, the one the browser listed first.
	slices.SortStableFunc(cs, func(a, b choice) int {
		switch {
		case a.q > b.q:
			return -1
		case a.q < b.q:
			return 1
		}
		return 0
	})
	if len(cs) == 0 {
		return pageLangs[0]
	}
	return cs[0].lang
}

// tr is text in lang: its translation, or the English when there is none.
func tr(lang, text string) string {
	if s, ok := pageText[lang][text]; ok {
		return s
	}
	return text
}

// trf is the format in lang, filled with a.
func trf(lang, format string, a ...any) string {
	return fmt.Sprintf(tr(lang, format), a...)
}
