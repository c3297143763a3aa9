// The herd register: the server searches (tag, name, EID, last digits), filters (status, sex,
// group on the as-of day) and counts, and pages it through the connection's cursor; only the
// rows in view are drawn, so a 10,000-animal farm scrolls smoothly without loading
// everything. The last synced register is kept on the device (IndexedDB) and shown offline,
// with the same search and filters run on the device.
import { useEffect, useRef, useState } from 'preact/hooks';
import { bulkClient, client } from '../client';
import { GroupsDocument, RegisterDocument, type AnimalStatus, type Sex } from '../graphql/generated';
import { count, showDate, showWeight, t, today, type Key } from '../i18n';
import { kept as keptRegister, syncRegister, type Row } from '../sync';
import { Failed } from './Farms';
import { DateField } from './DateField';


const PAGE = 200;
// How long after the first page the kept register's sync waits, at least (then for an idle
// moment): ms.
const SYNC_AFTER = 1500;

/** afterIdle runs f once ms have passed and the page is idle; it answers a cancel. */
export function afterIdle(f: () => void, ms: number): () => void {
  let idle = 0;
  const timer = setTimeout(() => {
    if ('requestIdleCallback' in window) idle = requestIdleCallback(f, { timeout: 3000 }); else f();
  }, ms);
  return () => { clearTimeout(timer); if (idle) cancelIdleCallback(idle); };
}
const ROW = 56; // px: one row's height (a large touch target)
const STATUSES: AnimalStatus[] = ['ON_FARM', 'SOLD', 'DIED', 'MOVED_OUT'];

/** matches is the offline search: tag, name, any identifier, or its last digits. */
export function matches(r: Row, q: string): boolean {
  const s = q.trim().toLowerCase().replace(/\s+/g, '');
  if (!s) return true;
  if (r.tag.toLowerCase().includes(s) || (r.name ?? '').toLowerCase().includes(s)) return true;
  return (r.profile?.identifiers ?? []).some((i) => {
    const v = i.value.toLowerCase().replace(/\s+/g, '');
    return v.includes(s) || v.replace(/\D/g, '').endsWith(s.replace(/\D/g, '') || '\u0000');
  });
}

export interface Filters { search: string; status: AnimalStatus | ''; group: string; sex: Sex | '' }

/** keptMatches is the register's filter run on the device over the kept rows (offline). */
export function keptMatches(r: Row, f: Filters): boolean {
  return matches(r, f.search) && (!f.status || r.profile?.status === f.status) &&
    (!f.group || (r.profile?.groupIDs ?? []).includes(f.group)) && (!f.sex || r.profile?.sex === f.sex);
}

export function Register({ farmID }: { farmID: string }) {
  const params = new URLSearchParams(location.search);
  const [search, setSearch] = useState(params.get('q') ?? '');
  const [status, setStatus] = useState<AnimalStatus | ''>('');
  const [group, setGroup] = useState('');
  const [sex, setSex] = useState<Sex | ''>('');
  const [asOf, setAsOf] = useState(today());
  const [rows, setRows] = useState<Row[]>([]);
  const [total, setTotal] = useState(0);
  const [cursor, setCursor] = useState<string | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState('');
  const [synced, setSynced] = useState('');
  const [fromDevice, setFromDevice] = useState(false);
  const [groups, setGroups] = useState<Array<{ id: string; name: string }>>([]);
  const loading = useRef(false);
  // asked is the cursor of the last page asked for: an effect of an earlier render runs after
  // paint, possibly once that page has come, and must not ask for it again.
  const asked = useRef<string | null | undefined>(undefined);
  const gen = useRef(0);
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);

  // fetchPage loads the page after the cursor (the first when null) and sets the rows, the
  // count, the cursor and whether more follow together, so that no render sees a cursor
  // without its rows (and asks for the next page too early). It answers whether it loaded.
  const fetchPage = async (after: string | null, g: number): Promise<boolean> => {
    // Offline, the register is the kept copy, which the change feeds keep up to date: an
    // answer Graphcache kept on the device for the same filters may be older than it.
    const fromKept = async (): Promise<boolean> => {
      const kept = await keptRegister(farmID);
      if (!kept || g !== gen.current) return false;
      const list = kept.rows.filter((x) => keptMatches(x, { search, status, group, sex }));
      setRows(list); setTotal(list.length); setMore(false); setSynced(kept.syncedAt); setFromDevice(true);
      return true;
    };
    if (!navigator.onLine && after === null && await fromKept()) return false;
    loading.current = true;
    // Past Graphcache (bulkClient): the rows live in this screen's state, and offline the
    // register is the kept copy, so normalising 200 animals into the cache (and keeping them
    // on the device twice) would only cost the main thread while the first page draws.
    const r = await bulkClient.query(RegisterDocument, {
      farmID, first: PAGE, after, asOf, search: search.trim() || null, status: status || null,
      sex: sex || null, groupID: group || null,
    }, { requestPolicy: 'network-only' }).toPromise();
    loading.current = false;
    if (g !== gen.current) return false;
    if (r.error || !r.data?.farm) {
      if ((r.error?.networkError || !navigator.onLine) && await fromKept()) return false;
      setError(r.error?.message ?? 'not found');
      return false;
    }
    const a = r.data.farm.animals;
    const page = a.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
    setRows((old) => (after === null ? page : old.concat(page)));
    setTotal(a.totalCount); setCursor(a.pageInfo.endCursor ?? null); setMore(a.pageInfo.hasNextPage);
    setFromDevice(false);
    return true;
  };

  useEffect(() => {
    const g = ++gen.current;
    setRows([]); setError(''); setCursor(null); setMore(false); setTop(0);
    asked.current = undefined;
    if (box.current) box.current.scrollTop = 0;
    let sync = () => {};
    const timer = setTimeout(() => {
      void fetchPage(null, g).then((got) => {
        if (!got) return;
        if (!search.trim() && !status && !group && !sex && asOf === today()) {
          // The kept copy is brought up to date once the page has drawn and gone idle: its
          // reads (a whole herd's on the first visit) then neither hold the main thread nor
          // share the network and the server with the screen the farmer is waiting for.
          sync = afterIdle(() => {
            void syncRegister(farmID, asOf).then((r) => { if (r.kept && g === gen.current) setSynced(r.kept.syncedAt); }, () => undefined);
          }, SYNC_AFTER);
        }
      });
    }, search ? 250 : 0);
    return () => { clearTimeout(timer); sync(); };
  }, [farmID, search, status, group, sex, asOf]);

  useEffect(() => {
    void client.query(GroupsDocument, { farmID }).toPromise().then((r) =>
      setGroups(r.data?.farm?.groups.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? []));
  }, [farmID]);

  // Virtualised scrolling: only the rows in view (and a few either side) are in the DOM.
  const [height, setHeight] = useState(600);
  useEffect(() => { if (box.current) setHeight(box.current.clientHeight || 600); }, [box.current]);
  const start = Math.max(0, Math.floor(top / ROW) - 10);
  const end = Math.min(rows.length, Math.ceil((top + height) / ROW) + 10);
  // The next page is asked for half a page ahead of the last row loaded: a quick flick covers
  // the last 40 rows in a fifth of a second, less than a page of 200 takes on a busy server.
  useEffect(() => {
    if (more && !loading.current && asked.current !== cursor && end >= rows.length - PAGE / 2) {
      asked.current = cursor;
      void fetchPage(cursor, gen.current);
    }
  }, [end, more, rows.length]);

  return (
    <section aria-labelledby="reg-title">
      <h1 id="reg-title">{t('register')}</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>{t('search')}<input id="search" type="search" value={search} placeholder={t('searchHint')}
          onInput={(e) => setSearch(e.currentTarget.value)} autoComplete="off" inputMode="search" /></label>
        <label>{t('status')}<select id="status" value={status} onChange={(e) => setStatus(e.currentTarget.value as AnimalStatus | '')}>
          <option value="">{t('any')}</option>
          {STATUSES.map((s) => <option key={s} value={s}>{t(s as Key)}</option>)}
        </select></label>
        <label>{t('group')}<select id="group" value={group} onChange={(e) => setGroup(e.currentTarget.value)}>
          <option value="">{t('any')}</option>
          {groups.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
        </select></label>
        <label>{t('sex')}<select id="sex" value={sex} onChange={(e) => setSex(e.currentTarget.value as Sex | '')}>
          <option value="">{t('any')}</option><option value="FEMALE">{t('female')}</option><option value="MALE">{t('male')}</option>
        </select></label>
        <DateField id="as-of" label={t('asOf')} value={asOf} onValue={(v) => setAsOf(v || today())} />
      </form>
      {error && <Failed message={error} />}
      <p class="muted" role="status" id="register-count">{count(total, 'animal', 'animals')}
        {synced && <> · {t('lastSynced')} {showDate(synced)} {fromDevice && '(offline)'}</>}</p>
      <div class="register" ref={box} onScroll={(e) => setTop(e.currentTarget.scrollTop)}>
        <ul style={{ height: `${rows.length * ROW}px` }}>
          {rows.slice(start, end).map((r, i) => {
            const eid = r.profile?.identifiers.find((x) => x.scheme.toLowerCase().includes('eid'))?.value ?? r.profile?.identifiers[0]?.value;
            return (
              <li key={r.id} style={{ transform: `translateY(${(start + i) * ROW}px)` }}>
                <a href={`/farms/${farmID}/animals/${r.id}`} class="row">
                  <strong class="tag">{r.tag}</strong>
                  <span class="nm">{r.name ?? ''}</span>
                  <span class="muted eid">{eid ?? ''}</span>
                  <span class="wt">{r.profile?.weightKg != null ? showWeight(r.profile.weightKg) : ''}</span>
                </a>
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}
