// Sign-in through Herdbook's own OAuth server: authorization code with PKCE (S256) for the
// first-party public client herdbook-web, as "OAuth 2.0 for Browser-Based Applications"
// describes. The access token lives in this module's memory only; the refresh token (rotated
// at every refresh) is also kept on the device, encrypted with the session's data key (an
// AES-GCM key that cannot be exported), so that after a reload without network the app
// still knows its user, works from the kept copy, and resumes without a password once the
// network is back, for as long as the refresh token lives (docs/web.md, "Sessions that
// survive a reload"). Sign-out revokes the tokens and clears every cache; the writes still
// queued are sent first, kept encrypted for the same user's next sign-in, or discarded, as
// the user chooses.
import { clearDevice, DEVICE_DB, exists, keptDelete, keptGet, keptPut, kvGet, kvPut, outboxAll, outboxPut, type Queued } from './store';

export const CLIENT_ID = 'herdbook-web';
export const SCOPES = 'read:farms write:farms read:records write:records read:animals write:animals';

interface Tokens { access: string; refresh: string | undefined; expiresAt: number }
let tokens: Tokens | null = null;
let refreshing: Promise<boolean> | null = null;

/** The session kept on the device (IndexedDB kv 'session'): whose it is, its data key (not
 * extractable), that key wrapped with the user's device key (for writes kept after a sign-out),
 * and the refresh token encrypted with the data key. */
interface Session { sub: string; dk: CryptoKey; wrapped: ArrayBuffer; wrapIV: Uint8Array; refresh?: { iv: Uint8Array; ct: ArrayBuffer } }
let session: Session | null = null;
/** ended: the server refused the kept refresh token (it expired or was revoked). */
let ended = false;
const listeners = new Set<() => void>();

export function onAuthChange(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}
function changed() { listeners.forEach((f) => f()); }

export function signedIn(): boolean { return tokens !== null; }
/** known: a user's session is on this device (signed in, or resumable, or ended but with its
 * writes still here): the screens work from the kept copy and writes are queued. */
export function known(): boolean { return session !== null; }
/** sessionEnded: the kept session cannot resume (the server refused its refresh token): the
 * user must sign in again to send what waits; nothing queued is dropped meanwhile. */
export function sessionEnded(): boolean { return ended; }
/** endedWhy: the server's words when it refused the kept session's refresh token. */
export let endedWhy = '';

const enc = new TextEncoder();
const dec = new TextDecoder();
const iv = () => crypto.getRandomValues(new Uint8Array(12));
async function seal(key: CryptoKey, text: string): Promise<{ iv: Uint8Array; ct: ArrayBuffer }> {
  const v = iv();
  return { iv: v, ct: await crypto.subtle.encrypt({ name: 'AES-GCM', iv: v as BufferSource }, key, enc.encode(text)) };
}
async function open(key: CryptoKey, v: Uint8Array, ct: ArrayBuffer): Promise<string> {
  return dec.decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: v as BufferSource }, key, ct));
}
async function sha(s: string): Promise<string> {
  return b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(`herdbook kept writes\0${s}`))));
}

/** persist keeps the session with the current refresh token (encrypted). */
async function persist(): Promise<void> {
  if (!session) return;
  session = { ...session, refresh: tokens?.refresh ? await seal(session.dk, tokens.refresh) : undefined };
  await kvPut('session', session).catch(() => undefined);
}

/** restored resolves once a session kept on the device (if any) is read back: after a reload,
 * offline or not, the app knows its user without asking for a password. */
export const restored: Promise<void> = (async () => {
  if (location.pathname === '/callback' || !(await exists(DEVICE_DB))) return;
  const s = await kvGet<Session>('session').catch(() => undefined);
  if (!s?.sub || !s.dk) return;
  session = s;
  if (!s.refresh) { ended = true; return; }
  try {
    tokens = { access: '', refresh: await open(s.dk, s.refresh.iv, s.refresh.ct), expiresAt: 0 };
  } catch {
    ended = true;
  }
})();

/** resume trades the kept refresh token for an access token as soon as the network is there. */
export async function resume(): Promise<void> {
  if (tokens && !tokens.access && navigator.onLine) await refresh();
}
addEventListener('online', () => { void resume(); });
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

/** Refused: the token endpoint answered and said no (not a network failure). */
class Refused extends Error {}

async function tokenRequest(form: Record<string, string>): Promise<void> {
  const res = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams(form),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok || typeof body.access_token !== 'string') {
    const m = body.error_description || body.error || body.message || `token: HTTP ${res.status}`;
    throw res.status >= 500 ? new Error(m) : new Refused(m);
  }
  tokens = {
    access: body.access_token,
    refresh: body.refresh_token ?? tokens?.refresh,
    expiresAt: Date.now() + (Number(body.expires_in) || 300) * 1000,
  };
  ended = false;
  await persist();
  changed();
}

function bytes(s: string): Uint8Array {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

/** keepWrites seals the writes not yet on the server (queued, or refused and not reviewed)
 * with the session's data key and files them, with the key wrapped by the user's device key,
 * for that user's next sign-in. */
async function keepWrites(s: Session, list: Queued[]): Promise<void> {
  const waiting = list.filter((q) => q.state !== 'sent');
  if (!waiting.length) return;
  const owner = await sha(s.sub);
  // Writes kept earlier by the same user and not yet opened are kept with these.
  const { iv: v, ct } = await seal(s.dk, JSON.stringify(waiting));
  const prev = await keptGet(owner).catch(() => undefined);
  if (prev) waiting.unshift(...(await openKept(s.dk, prev).catch(() => [])));
  const again = prev ? await seal(s.dk, JSON.stringify(waiting)) : { iv: v, ct };
  await keptPut(owner, { wrapped: s.wrapped, wrapIV: s.wrapIV, iv: again.iv, data: again.ct, count: waiting.length, at: new Date().toISOString() });
}
async function openKept(dk: CryptoKey, k: { iv: Uint8Array; data: ArrayBuffer }): Promise<Queued[]> {
  return JSON.parse(await open(dk, k.iv, k.data)) as Queued[];
}

/** What the last sign-in found kept from an earlier session: how many writes came back, and
 * how many could not be opened (the device key changed with a new password). */
export const restoredWrites = { count: 0, unopened: 0 };

/** startSession runs after a sign-in: it fetches the user's device key, keeps a session for
 * this user (a new data key, or the one already here when the same user signs in again),
 * puts another user's leftover writes aside for that user, and brings back the writes this
 * user kept at an earlier sign-out. */
async function startSession(): Promise<void> {
  const res = await fetch('/oauth/device-key', { headers: { Authorization: `Bearer ${tokens!.access}`, Accept: 'application/json' } });
  const body = await res.json().catch(() => ({})) as { sub?: string; key?: string };
  if (!res.ok || !body.sub || !body.key) throw new Error(`device key: HTTP ${res.status}`);
  const ku = await crypto.subtle.importKey('raw', bytes(body.key) as BufferSource, 'AES-GCM', false, ['encrypt', 'decrypt']);
  const here = await kvGet<Session>('session').catch(() => undefined);
  if (here?.sub && here.sub !== body.sub) {
    // Another user's session ended here without a sign-out: their writes go aside for them.
    await keepWrites(here, await outboxAll().catch(() => []));
    await clearDevice();
  }
  if (here?.sub === body.sub && here.dk) {
    session = here;
  } else {
    const dk = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
    const raw = await crypto.subtle.exportKey('raw', dk);
    const wrapIV = iv();
    const wrapped = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: wrapIV as BufferSource }, ku, raw);
    session = { sub: body.sub, dk: await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']), wrapped, wrapIV };
  }
  await persist();
  const owner = await sha(body.sub);
  const kept = await keptGet(owner).catch(() => undefined);
  if (kept) {
    try {
      const raw = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: kept.wrapIV as BufferSource }, ku, kept.wrapped);
      const old = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['decrypt']);
      const list = await openKept(old, kept);
      const have = new Set((await outboxAll().catch(() => [])).map((q) => q.key));
      for (const q of list) if (!have.has(q.key)) await outboxPut(q);
      await keptDelete(owner);
      restoredWrites.count = list.length;
    } catch {
      restoredWrites.unopened = kept.count;
    }
  }
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
  // Without a kept session (the device key unavailable) the tokens stay in memory only.
  await startSession().catch(() => { session = null; });
  changed();
  return saved.returnTo && !saved.returnTo.startsWith('/callback') ? saved.returnTo : '/';
}

/** refresh trades the refresh token for a new pair (rotation); false when that fails. */
export function refresh(): Promise<boolean> {
  if (!tokens?.refresh) return Promise.resolve(false);
  refreshing ??= tokenRequest({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: tokens.refresh })
    .then(() => true, (e: unknown) => {
      // Refused: the session is over (its writes stay queued until the user signs in again).
      // A network failure is no answer: the kept refresh token is tried again later.
      if (e instanceof Refused) { tokens = null; ended = true; endedWhy = e.message; void persist(); changed(); }
      return false;
    })
    .finally(() => { refreshing = null; });
  return refreshing;
}

/** accessToken answers a token valid for at least 30 s more, refreshing when needed. */
export async function accessToken(): Promise<string | null> {
  if (!tokens) return null;
  if (tokens.expiresAt - Date.now() < 30_000) await refresh();
  return tokens?.access || null;
}

/** signOut revokes the tokens and clears the device: IndexedDB, Graphcache's copy, Cache
 * Storage. The writes not yet on the server are kept for the same user's next sign-in
 * (keep: true), encrypted, or dropped (keep: false, after the user said so). */
export async function signOut(keep = true): Promise<void> {
  const t = tokens;
  if (keep && session) await keepWrites(session, await outboxAll().catch(() => []));
  tokens = null;
  session = null;
  ended = false;
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
