// The device's store (IndexedDB): the last synced register of each farm, and the outbox of
// writes made offline. Sign-out deletes it all, with the service worker's Cache Storage.
const DB = 'herdbook';
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
}
export const outboxAll = () => tx<Queued[]>('outbox', 'readonly', (s) => s.getAll() as IDBRequest<Queued[]>);
export const outboxPut = (q: Queued) => tx('outbox', 'readwrite', (s) => s.put(q)).then(() => undefined);
export const outboxDelete = (key: string) => tx('outbox', 'readwrite', (s) => s.delete(key)).then(() => undefined);

/** clearDevice deletes the database and every Cache Storage cache of this origin. */
export async function clearDevice(): Promise<void> {
  if (opened) { (await opened.catch(() => null))?.close(); opened = null; }
  await new Promise<void>((resolve) => {
    const r = indexedDB.deleteDatabase(DB);
    r.onsuccess = r.onerror = () => resolve();
  });
  if ('caches' in self) {
    for (const k of await caches.keys()) await caches.delete(k);
  }
  sessionStorage.clear();
}
