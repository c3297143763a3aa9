// The device's store (IndexedDB): the last synced register of each farm, the outbox of
// writes made offline, and the session (its refresh token, encrypted: auth.ts). Sign-out
// deletes it all, with Graphcache's kept copy and the service worker's Cache Storage; only
// the writes a user chose to keep stay, encrypted, in a database of their own (KEPT).
const DB = 'herdbook';
/** Graphcache's kept copy of every answer read (client.ts), for reading offline. */
export const CACHE_DB = 'herdbook-cache';
const KEPT = 'herdbook-kept';
let opened: Promise<IDBDatabase> | null = null;

function open(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => {
      req.result.createObjectStore('kv');
      req.result.createObjectStore('outbox', { keyPath: 'key' });
    };
    req.onsuccess = () => {
      // A deletion (sign-out, here or in another tab) closes this connection at once.
      req.result.onversionchange = () => { req.result.close(); opened = null; };
      resolve(req.result);
    };
    req.onerror = () => { opened = null; reject(req.error); };
  });
  return opened;
}

function tx<T>(store: string, mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return open().then((db) => new Promise<T>((resolve, reject) => {
    const r = f(db.transaction(store, mode).objectStore(store));
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  }));
}

export const kvGet = <T>(key: string) => tx<T | undefined>('kv', 'readonly', (s) => s.get(key) as IDBRequest<T | undefined>);
export const kvPut = (key: string, value: unknown) => tx('kv', 'readwrite', (s) => s.put(value, key)).then(() => undefined);

export interface Queued {
  key: string; // the Idempotency-Key the write is sent with, every time
  at: string;
  label: string;
  query: string;
  variables: Record<string, unknown>;
  state: 'queued' | 'sent' | 'refused' | 'failed';
  message?: string;
  /** The server's error code of a refusal (CONFLICT, WITHDRAWAL, BAD_USER_INPUT, …). */
  code?: string;
}
export const outboxAll = () => tx<Queued[]>('outbox', 'readonly', (s) => s.getAll() as IDBRequest<Queued[]>);
export const outboxPut = (q: Queued) => tx('outbox', 'readwrite', (s) => s.put(q)).then(() => undefined);
export const outboxDelete = (key: string) => tx('outbox', 'readwrite', (s) => s.delete(key)).then(() => undefined);

/** exists tells whether a database is on the device, without making it. */
export async function exists(name: string): Promise<boolean> {
  try { return (await indexedDB.databases()).some((d) => d.name === name); } catch { return true; }
}
export const DEVICE_DB = DB;

function drop(name: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const r = indexedDB.deleteDatabase(name);
    r.onsuccess = r.onerror = r.onblocked = () => resolve();
  });
}

/** What a sign-out kept of one user's writes: the entries encrypted with the session's data
 * key (AES-GCM), and that key wrapped with the user's device key, which only the server gives,
 * and only to that user signed in (auth.ts). */
export interface KeptWrites { wrapped: ArrayBuffer; wrapIV: Uint8Array; iv: Uint8Array; data: ArrayBuffer; count: number; at: string }

function keptDB(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(KEPT, 1);
    req.onupgradeneeded = () => { req.result.createObjectStore('kept'); };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
function keptTx<T>(mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return keptDB().then((db) => new Promise<T>((resolve, reject) => {
    const r = f(db.transaction('kept', mode).objectStore('kept'));
    r.onsuccess = () => { resolve(r.result); db.close(); };
    r.onerror = () => { reject(r.error); db.close(); };
  }));
}
/** Kept writes are filed under a hash of the user's id, not the id itself. */
export const keptGet = async (owner: string) => (await exists(KEPT))
  ? keptTx<KeptWrites | undefined>('readonly', (s) => s.get(owner) as IDBRequest<KeptWrites | undefined>) : undefined;
export const keptPut = (owner: string, k: KeptWrites) => keptTx('readwrite', (s) => s.put(k, owner)).then(() => undefined);
/** keptDelete drops one user's kept writes, and the database once no one's are left. */
export async function keptDelete(owner: string): Promise<void> {
  await keptTx('readwrite', (s) => s.delete(owner));
  if ((await keptTx('readonly', (s) => s.count())) === 0) await drop(KEPT);
}

/** clearDevice deletes the database, Graphcache's copy and every Cache Storage cache of this
 * origin; writes kept for a later sign-in (KEPT) stay. */
export async function clearDevice(): Promise<void> {
  if (opened) { (await opened.catch(() => null))?.close(); opened = null; }
  await drop(DB);
  await drop(CACHE_DB);
  // The app's shell (its page, code and icons: no farm data) stays, so that the app still
  // opens offline after a sign-out, to sign in again or on another user.
  if ('caches' in self) {
    for (const k of await caches.keys()) if (!k.startsWith('herdbook-shell-')) await caches.delete(k);
  }
  sessionStorage.clear();
}
