// Graphcache's storage adapter: the normalised cache kept in IndexedDB (CACHE_DB), so that
// after a reload without network the screens read before answer from it.
//
// A write keeps only the entries that changed, batched off the frame that drew them, as ONE
// row: the batch serialised to one string (a deleted entry as null), under an increasing key.
// Reading replays the rows in key order. Graphcache hands over one entry per field, so a
// register page of 200 animals is a few thousand entries: put one by one, they cost 120 ms of
// main thread in one task on a fast desktop (Lighthouse's Total Blocking Time counts that
// four times, as a phone); as one string they cost a few milliseconds. The rows are folded
// into one when the app has read them and the page is idle (compact), so the store does not
// grow with every write.
import type { StorageAdapter } from '@urql/exchange-graphcache';
import { known, restored, signedIn } from './auth';
import { CACHE_DB } from './store';

type Entries = Record<string, string | undefined>;
/** Kept is one batch as stored: null marks an entry deleted. */
type Kept = Record<string, string | null>;

const BATCHES = 'batches';
// Version 1 kept one row per entry in 'entries'; version 2 keeps batches.
const VERSION = 2;

let db: Promise<IDBDatabase> | null = null;
function open(): Promise<IDBDatabase> {
  db ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(CACHE_DB, VERSION);
    req.onupgradeneeded = (ev) => {
      const d = req.result;
      const batches = d.createObjectStore(BATCHES, { autoIncrement: true });
      if (ev.oldVersion < 1 || !d.objectStoreNames.contains('entries')) return;
      // A copy kept by the earlier version is carried over as one batch, so an upgrade made
      // offline does not lose it.
      const old: Kept = {};
      const cur = req.transaction!.objectStore('entries').openCursor();
      cur.onsuccess = () => {
        const c = cur.result;
        if (c) { old[c.key as string] = c.value as string; c.continue(); return; }
        batches.put(JSON.stringify(old));
        d.deleteObjectStore('entries');
      };
    };
    req.onsuccess = () => {
      req.result.onversionchange = () => { req.result.close(); db = null; };
      resolve(req.result);
    };
    req.onerror = () => { db = null; reject(req.error); };
  });
  return db;
}

/** serialise turns a batch of Graphcache's entries into the one string a row keeps. */
function serialise(batch: Entries): string {
  const out: Kept = {};
  for (const k in batch) out[k] = batch[k] ?? null;
  return JSON.stringify(out);
}

let pending: Entries = {};
let timer: ReturnType<typeof setTimeout> | null = null;
function drain(): Promise<void> {
  timer = null;
  const batch = pending;
  pending = {};
  // Nothing is kept for no one: signed out, the answers stay in memory only.
  if (!known() && !signedIn()) return Promise.resolve();
  const row = serialise(batch);
  return open().then((d) => new Promise<void>((resolve) => {
    const tx = d.transaction(BATCHES, 'readwrite');
    tx.objectStore(BATCHES).put(row);
    tx.oncomplete = tx.onerror = tx.onabort = () => resolve();
  }), () => undefined);
}

// Rows at most before they are folded into one; and how long after the read to fold them.
const FOLD_ROWS = 8;
const FOLD_AFTER = 5000;

// Each clear (a sign-out) starts a new epoch: a fold planned before it writes nothing.
let epoch = 0;

/** compact folds the rows up to lastKey into one (they were read as merged), when idle. */
function compact(lastKey: IDBValidKey, merged: Entries) {
  const planned = epoch;
  const run = () => {
    if (planned !== epoch || (!known() && !signedIn())) return;
    void open().then((d) => {
      const tx = d.transaction(BATCHES, 'readwrite');
      const s = tx.objectStore(BATCHES);
      s.delete(IDBKeyRange.upperBound(lastKey));
      // Under the last folded key, so that batches written since stay after it.
      s.put(serialise(merged), lastKey);
    }, () => undefined);
  };
  setTimeout(() => {
    if ('requestIdleCallback' in window) requestIdleCallback(run, { timeout: 10_000 }); else run();
  }, FOLD_AFTER);
}

export const storage: StorageAdapter & { clear(): Promise<void> } = {
  readData: () => restored.then(() => (known() ? open() : Promise.reject(new Error('no session')))).then((d) => new Promise<Entries>((resolve) => {
    const out: Entries = {};
    let rows = 0;
    let last: IDBValidKey | null = null;
    const req = d.transaction(BATCHES, 'readonly').objectStore(BATCHES).openCursor();
    req.onsuccess = () => {
      const c = req.result;
      if (!c) {
        if (last !== null && rows > FOLD_ROWS) compact(last, { ...out });
        resolve(out);
        return;
      }
      rows++;
      last = c.key;
      try {
        const kept = JSON.parse(c.value as string) as Kept;
        for (const k in kept) {
          const v = kept[k];
          if (v === null || v === undefined) delete out[k]; else out[k] = v;
        }
      } catch { /* a row that does not parse is skipped: the network answers instead */ }
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
    epoch++;
    pending = {};
    if (timer) { clearTimeout(timer); timer = null; }
    return open().then((d) => new Promise<void>((resolve) => {
      const tx = d.transaction(BATCHES, 'readwrite');
      tx.objectStore(BATCHES).clear();
      tx.oncomplete = tx.onerror = () => { d.close(); db = null; resolve(); };
    }), () => undefined);
  },
};
// A write not yet put when the page goes away is put now.
addEventListener('pagehide', () => { if (timer) { clearTimeout(timer); void drain(); } });
