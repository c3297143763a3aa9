// Sign-in through Herdbook's own OAuth server: authorization code with PKCE (S256) for the
// first-party public client herdbook-web, as "OAuth 2.0 for Browser-Based Applications"
// describes. Tokens live in this module's memory only (never in storage); the refresh token
// rotates at every refresh; sign-out revokes it and clears every cache and queue.
import { clearDevice } from './store';

export const CLIENT_ID = 'herdbook-web';
export const SCOPES = 'read:farms write:farms read:records write:records read:animals write:animals';

interface Tokens { access: string; refresh: string | undefined; expiresAt: number }
let tokens: Tokens | null = null;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<() => void>();

export function onAuthChange(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}
function changed() { listeners.forEach((f) => f()); }

export function signedIn(): boolean { return tokens !== null; }
export function redirectURI(): string { return `${location.origin}/callback`; }

function b64url(bytes: Uint8Array): string {
  let s = '';
  bytes.forEach((b) => { s += String.fromCharCode(b); });
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function random(n: number): string { return b64url(crypto.getRandomValues(new Uint8Array(n))); }

/** signIn sends the browser to /oauth/authorize; the verifier waits in sessionStorage. */
export async function signIn(returnTo: string = location.pathname + location.search): Promise<void> {
  const verifier = random(32);
  const state = random(16);
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem('hb.pkce', JSON.stringify({ verifier, state, returnTo }));
  const q = new URLSearchParams({
    response_type: 'code', client_id: CLIENT_ID, redirect_uri: redirectURI(), scope: SCOPES,
    state, code_challenge: challenge, code_challenge_method: 'S256',
  });
  location.assign(`/oauth/authorize?${q}`);
}

async function tokenRequest(form: Record<string, string>): Promise<void> {
  const res = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams(form),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok || typeof body.access_token !== 'string') {
    throw new Error(body.error_description || body.error || body.message || `token: HTTP ${res.status}`);
  }
  tokens = {
    access: body.access_token,
    refresh: body.refresh_token ?? tokens?.refresh,
    expiresAt: Date.now() + (Number(body.expires_in) || 300) * 1000,
  };
  changed();
}

/** completeSignIn redeems the code on /callback and answers where to go next. */
export async function completeSignIn(): Promise<string> {
  const q = new URLSearchParams(location.search);
  const saved = JSON.parse(sessionStorage.getItem('hb.pkce') || 'null') as { verifier: string; state: string; returnTo: string } | null;
  sessionStorage.removeItem('hb.pkce');
  if (q.get('error')) throw new Error(q.get('error_description') || q.get('error') || 'denied');
  if (!saved || q.get('state') !== saved.state || !q.get('code')) throw new Error('The sign-in answer does not match this tab: sign in again.');
  await tokenRequest({
    grant_type: 'authorization_code', client_id: CLIENT_ID, code: q.get('code') as string,
    redirect_uri: redirectURI(), code_verifier: saved.verifier,
  });
  return saved.returnTo && !saved.returnTo.startsWith('/callback') ? saved.returnTo : '/';
}

/** refresh trades the refresh token for a new pair (rotation); false when that fails. */
export function refresh(): Promise<boolean> {
  if (!tokens?.refresh) return Promise.resolve(false);
  refreshing ??= tokenRequest({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: tokens.refresh })
    .then(() => true, () => { tokens = null; changed(); return false; })
    .finally(() => { refreshing = null; });
  return refreshing;
}

/** accessToken answers a token valid for at least 30 s more, refreshing when needed. */
export async function accessToken(): Promise<string | null> {
  if (!tokens) return null;
  if (tokens.expiresAt - Date.now() < 30_000) await refresh();
  return tokens?.access ?? null;
}

/** signOut revokes the tokens and clears the device: IndexedDB, Cache Storage, the queue. */
export async function signOut(): Promise<void> {
  const t = tokens;
  tokens = null;
  for (const token of [t?.refresh, t?.access]) {
    if (!token) continue;
    await fetch('/oauth/revoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: CLIENT_ID }),
    }).catch(() => undefined);
  }
  await clearDevice();
  changed();
}
