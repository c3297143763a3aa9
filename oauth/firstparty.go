package oauth

import (
	"context"
	"fmt"
	"slices"
	"strings"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/oauthclient"
	"github.com/herdbook/herdbook/ent/schema"
)

// WebClientID is the client_id of the web app served by the same binary at the base URL: a
// first-party public client that exists without manual set-up (EnsureWebClient).
const WebClientID = "herdbook-web"

// WebClientName is the name the pages show for the web app.
const WebClientName = "Herdbook"

// WebRedirectURIs are the web app's redirect URIs for a base URL: the app's root and its
// callback path, both on the server's own origin.
func WebRedirectURIs(baseURL string) []string {
	base := strings.TrimRight(baseURL, "/")
	return []string{base + "/", base + "/callback"}
}

// IsFirstParty tells whether cl is the web app served by this server. Its consent page is
// skipped: the user is signing in to Herdbook itself, not granting a third party access.
func IsFirstParty(cl *ent.OAuthClient) bool { return cl != nil && cl.ClientID == WebClientID }

// EnsureWebClient makes the first-party web client exist with the redirect URIs of baseURL,
// every scope, public (PKCE required, no secret) and not an observer. It is idempotent and
// safe when several nodes start at once; a client an administrator deactivated stays
// deactivated (the seed never brings it back).
func (i *Issuer) EnsureWebClient(ctx context.Context, baseURL string) (*ent.OAuthClient, error) {
	in := ClientInput{ClientID: WebClientID, Name: WebClientName, RedirectURIs: WebRedirectURIs(baseURL),
		Scopes: herdbook.AllScopes, Public: true}
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("web client for base URL %q: %w", baseURL, err)
	}
	for attempt := 0; ; attempt++ {
		cl, err := i.client.OAuthClient.Query().Where(oauthclient.ClientID(WebClientID)).Only(schema.IncludeInactive(ctx))
		if ent.IsNotFound(err) {
			cl, err = i.client.OAuthClient.Create().SetClientID(in.ClientID).SetName(in.Name).
				SetRedirectUris(in.RedirectURIs).SetScopes(in.Scopes).SetPublic(true).SetObserver(false).Save(ctx)
			if ent.IsConstraintError(err) && attempt == 0 {
				continue // another node created it meanwhile: read it again
			}
			return cl, err
		}
		if err != nil {
			return nil, err
		}
		if !cl.IsActive {
			return cl, nil
		}
		if slices.Equal(cl.RedirectUris, in.RedirectURIs) && slices.Equal(cl.Scopes, in.Scopes) && cl.Public && !cl.Observer && cl.SecretHash == "" && cl.Name == in.Name {
			return cl, nil
		}
		return cl.Update().SetName(in.Name).SetRedirectUris(in.RedirectURIs).SetScopes(in.Scopes).
			SetPublic(true).SetObserver(false).ClearSecretHash().Save(ctx)
	}
}
