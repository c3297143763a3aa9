// The register kept on the device, and its sync through the change feed (docs/api.md#change-feed):
// a full read keeps the records feed's cursor taken before it; later syncs ask the feed what
// changed since (GET …/records?updated_since=), read again only the animals its facts name,
// and keep the new cursor. A feed that refuses the cursor, or a kept copy older than a day,
// gets a full read again (animals made without a record are not in the feed). The full read
// goes past Graphcache (bulkClient) and yields to the page between its pages, so that the
// register of a 10,000-animal farm scrolls smoothly while its copy syncs.
import { authFetch, bulkClient, client } from './client';
import { RegisterDocument, RegisterNodesDocument, type RegisterQuery, type RegisterRowFragment } from './graphql/generated';
import { kvGet, kvPut } from './store';

export type Row = RegisterRowFragment;
export interface Kept { rows: Row[]; total: number; syncedAt: string; cursor?: string; asOf: string }

const DAY = 864e5;
const key = (farmID: string) => `register:${farmID}`;
export const kept = (farmID: string) => kvGet<Kept>(key(farmID));

async function feed(farmID: string, since: string | null): Promise<{ cursor: string; ids: Set<string> } | null> {
  const ids = new Set<string>();
  let cursor = since;
  for (let page = 0; page < 50; page++) {
    const q = since === null ? 'take=0' : `take=500&updated_since=${encodeURIComponent(cursor ?? '')}`;
    const res = await authFetch(`/v1/farm/${farmID}/records?${q}`, { headers: { Accept: 'application/json' } });
    if (!res.ok) return null;
    const body = await res.json() as { next_cursor: string; records: Array<{ record_items?: Array<{ metadata?: { birth_history?: Record<string, unknown> } }> }> };
    for (const r of body.records) {
      for (const it of r.record_items ?? []) {
        const f = it.metadata?.birth_history;
        if (!f) continue;
        for (const k of ['animal_id', 'dam_id', 'sire_id', 'offspring_id']) if (typeof f[k] === 'string') ids.add(f[k] as string);
        if (Array.isArray(f.offspring_ids)) f.offspring_ids.forEach((x) => typeof x === 'string' && ids.add(x));
      }
    }
    cursor = body.next_cursor;
    if (since === null || body.records.length < 500) break;
  }
  return { cursor: cursor ?? '', ids };
}

async function full(farmID: string, asOf: string): Promise<Kept | null> {
  const start = await feed(farmID, null); // the cursor first, so nothing changed meanwhile is lost
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
  const k: Kept = { rows, total: rows.length, syncedAt: new Date().toISOString(), asOf, ...(start ? { cursor: start.cursor } : {}) };
  await kvPut(key(farmID), k);
  return k;
}

/** syncRegister brings the kept register up to date: by the change feed when it can. */
export async function syncRegister(farmID: string, asOf: string): Promise<{ kept: Kept | null; how: 'full' | 'feed' }> {
  const k = await kept(farmID).catch(() => undefined);
  if (!k?.cursor || k.asOf !== asOf || Date.now() - Date.parse(k.syncedAt) > DAY) return { kept: await full(farmID, asOf), how: 'full' };
  const changed = await feed(farmID, k.cursor);
  if (!changed) return { kept: await full(farmID, asOf), how: 'full' };
  let rows = k.rows;
  if (changed.ids.size) {
    const r = await client.query(RegisterNodesDocument, { ids: [...changed.ids], asOf }, { requestPolicy: 'network-only' }).toPromise();
    const fresh = new Map((r.data?.nodes ?? []).flatMap((n) => (n && 'tag' in n ? [[n.id, n as Row] as const] : [])));
    rows = rows.map((x) => fresh.get(x.id) ?? x);
    const known = new Set(rows.map((x) => x.id));
    for (const [id, n] of fresh) if (!known.has(id)) rows.push(n);
    rows.sort((a, b) => a.tag.localeCompare(b.tag));
  }
  const next: Kept = { ...k, rows, total: rows.length, cursor: changed.cursor, syncedAt: new Date().toISOString() };
  await kvPut(key(farmID), next);
  return { kept: next, how: 'feed' };
}
