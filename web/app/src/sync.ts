// The register kept on the device, and its sync through the change feeds (docs/api.md#change-feed):
// a full read keeps the cursors of the records feed and the animals feed, taken before it;
// later syncs ask both what changed since (GET …/records and …/animals?updated_since=), read
// again only the animals the changed facts name and the animals made or changed, drop the
// deleted ones, and keep the new cursors. A feed that refuses a cursor, another as-of date, or
// a full read older than a day (a day's profiles age) gets a full read again. The full read
// goes past Graphcache (bulkClient) and yields to the page between its pages, so that the
// register of a 10,000-animal farm scrolls smoothly while its copy syncs.
import { authFetch, bulkClient, client } from './client';
import { RegisterDocument, RegisterNodesDocument, type RegisterQuery, type RegisterRowFragment } from './graphql/generated';
import { kvGet, kvPut } from './store';

export type Row = RegisterRowFragment;
export interface Kept {
  rows: Row[]; total: number; asOf: string;
  /** syncedAt: the last sync of either kind; readAt: the last full read. */
  syncedAt: string; readAt?: string;
  /** The records feed's and the animals feed's cursors. */
  cursor?: string; animalCursor?: string;
}

const DAY = 864e5;
const key = (farmID: string) => `register:${farmID}`;
export const kept = (farmID: string) => kvGet<Kept>(key(farmID));

type FeedPage = { next_cursor: string; records: Array<Record<string, unknown>> };

/** follow reads a list's change feed since a cursor (null: only take the cursor, take=0),
 * hands every changed row to take, and answers the cursor to keep; null when refused. */
async function follow(path: string, since: string | null, take: (row: Record<string, unknown>) => void): Promise<string | null> {
  let cursor = since;
  for (let page = 0; page < 50; page++) {
    const q = since === null ? 'take=0' : `take=500&updated_since=${encodeURIComponent(cursor ?? '')}`;
    const res = await authFetch(`${path}?${q}`, { headers: { Accept: 'application/json' } });
    if (!res.ok) return null;
    const body = await res.json() as FeedPage;
    body.records.forEach(take);
    cursor = body.next_cursor;
    if (since === null || body.records.length < 500) break;
  }
  return cursor ?? '';
}

interface Changes { cursor: string; animalCursor: string; ids: Set<string>; gone: Set<string> }

/** changes asks both feeds what changed since the cursors (null: take both cursors): the
 * records feed names the animals whose facts changed; the animals feed the animals made,
 * renamed, retagged or deleted (those made without any record are only there). */
async function changes(farmID: string, since: { cursor: string; animalCursor: string } | null): Promise<Changes | null> {
  const ids = new Set<string>();
  const gone = new Set<string>();
  const cursor = await follow(`/v1/farm/${farmID}/records`, since?.cursor ?? null, (r) => {
    for (const it of (r.record_items ?? []) as Array<{ metadata?: { birth_history?: Record<string, unknown> } }>) {
      const f = it.metadata?.birth_history;
      if (!f) continue;
      for (const k of ['animal_id', 'dam_id', 'sire_id', 'offspring_id']) if (typeof f[k] === 'string') ids.add(f[k] as string);
      if (Array.isArray(f.offspring_ids)) f.offspring_ids.forEach((x) => typeof x === 'string' && ids.add(x));
    }
  });
  if (cursor === null) return null;
  const animalCursor = await follow(`/v1/farm/${farmID}/animals`, since?.animalCursor ?? null, (a) => {
    if (typeof a.id !== 'string') return;
    if (a.is_active === false) gone.add(a.id); else ids.add(a.id);
  });
  if (animalCursor === null) return null;
  for (const id of gone) ids.delete(id);
  return { cursor, animalCursor, ids, gone };
}

async function full(farmID: string, asOf: string): Promise<Kept | null> {
  const start = await changes(farmID, null); // the cursors first, so nothing changed meanwhile is lost
  const rows: Row[] = [];
  let after: string | null = null;
  for (;;) {
    const r = await bulkClient.query(RegisterDocument, { farmID, first: 500, after, asOf }, { requestPolicy: 'network-only' }).toPromise();
    const a: NonNullable<RegisterQuery['farm']>['animals'] | undefined = r.data?.farm?.animals;
    if (!a) return null;
    for (const e of a.edges ?? []) if (e?.node) rows.push(e.node);
    if (!a.pageInfo.hasNextPage) break;
    after = a.pageInfo.endCursor ?? null;
    await new Promise((go) => setTimeout(go, 0)); // let the page scroll and paint between pages
  }
  const now = new Date().toISOString();
  const k: Kept = { rows, total: rows.length, syncedAt: now, readAt: now, asOf, ...(start ? { cursor: start.cursor, animalCursor: start.animalCursor } : {}) };
  await kvPut(key(farmID), k);
  return k;
}

/** syncRegister brings the kept register up to date: by the change feed when it can. */
export async function syncRegister(farmID: string, asOf: string): Promise<{ kept: Kept | null; how: 'full' | 'feed' }> {
  const k = await kept(farmID).catch(() => undefined);
  if (!k?.cursor || !k.animalCursor || k.asOf !== asOf || Date.now() - Date.parse(k.readAt ?? k.syncedAt) > DAY) {
    return { kept: await full(farmID, asOf), how: 'full' };
  }
  const changed = await changes(farmID, { cursor: k.cursor, animalCursor: k.animalCursor });
  if (!changed) return { kept: await full(farmID, asOf), how: 'full' };
  let rows = changed.gone.size ? k.rows.filter((x) => !changed.gone.has(x.id)) : k.rows;
  if (changed.ids.size) {
    const r = await client.query(RegisterNodesDocument, { ids: [...changed.ids], asOf }, { requestPolicy: 'network-only' }).toPromise();
    const fresh = new Map((r.data?.nodes ?? []).flatMap((n) => (n && 'tag' in n ? [[n.id, n as Row] as const] : [])));
    rows = rows.map((x) => fresh.get(x.id) ?? x);
    const known = new Set(rows.map((x) => x.id));
    for (const [id, n] of fresh) if (!known.has(id)) rows.push(n);
    rows.sort((a, b) => a.tag.localeCompare(b.tag));
  }
  const next: Kept = { ...k, rows, total: rows.length, cursor: changed.cursor, animalCursor: changed.animalCursor, syncedAt: new Date().toISOString() };
  await kvPut(key(farmID), next);
  return { kept: next, how: 'feed' };
}
