// Graphcache's storage adapter: every normalised entry of the cache kept in IndexedDB
// (CACHE_DB), one row per entry, so that after a reload without network the screens read
// before answer from it. A write puts only the entries that changed, batched and off the
// frame that drew them (the default adapter rewrites the whole day's copy at each write,
// which on a 10,000-animal register cost long tasks while scrolling).
import type { StorageAdapter } from '@urql/exchange-graphcache';
import { known, restored, signedIn } from './auth';
import { CACHE_DB } from './store';

type Entries = Record<string, string | undefined>;

let db: Promise<IDBDatabase> | null = null;
function open(): Promise<IDBDatabase> {
  db ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(CACHE_DB, 1);
    req.onupgradeneeded = () => { req.result.createObjectStore('entries'); };
    req.onsuccess = () => {
      req.result.onversionchange = () => { req.result.close(); db = null; };
      resolve(req.result);
    };
    req.onerror = () => { db = null; reject(req.error); };
  });
  return db;
}

let pending: Entries = {};
let timer: ReturnType<typeof setTimeout> | null = null;
function drain(): Promise<void> {
  timer = null;
  const batch = pending;
  pending = {};
  // Nothing is kept for no one: signed out, the answers stay in memory only.
  if (!known() && !signedIn()) return Promise.resolve();
  return open().then((d) => new Promise<void>((resolve) => {
    const tx = d.transaction('entries', 'readwrite');
    const s = tx.objectStore('entries');
    for (const [k, v] of Object.entries(batch)) {
      if (v === undefined) s.delete(k); else s.put(v, k);
    }
    tx.oncomplete = tx.onerror = tx.onabort = () => resolve();
  }), () => undefined);
}

export const storage: StorageAdapter & { clear(): Promise<void> } = {
  readData: () => restored.then(() => (known() ? open() : Promise.reject(new Error('no session')))).then((d) => new Promise<Entries>((resolve) => {
    const out: Entries = {};
    const req = d.transaction('entries', 'readonly').objectStore('entries').openCursor();
    req.onsuccess = () => {
      const c = req.result;
      if (!c) { resolve(out); return; }
      out[c.key as string] = c.value as string;
      c.continue();
    };
    req.onerror = () => resolve(out);
  }), () => ({})),
  writeData: (delta: Entries) => {
    Object.assign(pending, delta);
    timer ??= setTimeout(() => { void drain(); }, 500);
    return Promise.resolve();
  },
  // The offline exchange's own mutation queue is not used (no optimistic writes): empty.
  readMetadata: () => Promise.resolve(null),
  writeMetadata: () => undefined,
  onOnline: (cb: () => void) => { addEventListener('online', cb); },
  clear: () => {
    pending = {};
    if (timer) { clearTimeout(timer); timer = null; }
    return open().then((d) => new Promise<void>((resolve) => {
      const tx = d.transaction('entries', 'readwrite');
      tx.objectStore('entries').clear();
      tx.oncomplete = tx.onerror = () => { d.close(); db = null; resolve(); };
    }), () => undefined);
  },
};
// A write not yet put when the page goes away is put now.
addEventListener('pagehide', () => { if (timer) { clearTimeout(timer); void drain(); } });
