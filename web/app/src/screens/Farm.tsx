// Farm administration: the farm's own settings (time zone, withdrawal rules, organic,
// breeding ages, calving interval, test tags; docs/settings.md) and its members and roles.
// An OWNER edits both; other members read them (the server refuses them anyway).
import { useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { client } from '../client';
import {
  AuditDocument, type AuditQuery, FarmSettingsDocument, FarmSettingsSaveDocument, MemberAddDocument, MemberRemoveDocument, MemberRoleDocument,
  MembersDocument, type FarmMemberRole, type WithdrawalRuleSet,
} from '../graphql/generated';
import { showDate, t, type Key } from '../i18n';
import { write } from '../outbox';
import { Fix, recordTitle, useEditor } from './Book';
import { Failed } from './Farms';
import { DateField } from './DateField';

const ROLES: FarmMemberRole[] = ['OWNER', 'EDITOR', 'READER'];
const RULES: WithdrawalRuleSet[] = ['GB_VMR_2013', 'EU_2019_6'];

/** days reads an optional whole number of days: empty is null (unset, not checked). */
const days = (v: string): number | null => (v.trim() === '' ? null : Number(v));
const str = (n: number | null | undefined): string => (n == null ? '' : String(n));

interface Grade { code: string; label: string }
interface AgeLine { minDays: string; maxDays: string; maleKG: string; femaleKG: string }

/** Grades edits the farm's calving-ease scale: its own codes and what they mean. No grade
 * at all is sent as null (unset): Herdbook ships no scale. */
function Grades({ rows, set }: { rows: Grade[]; set: (g: Grade[]) => void }) {
  const put = (i: number, k: keyof Grade, v: string) => set(rows.map((r, j) => (j === i ? { ...r, [k]: v } : r)));
  return (
    <fieldset id="fs-ease">
      <legend>{t('easeScale')}</legend>
      <p class="note">{t('easeNote')}</p>
      {rows.map((r, i) => (
        <div class="row-edit" key={i}>
          <label>{t('code')}<input id={`fs-ease-code-${i}`} type="text" required maxLength={20} autoComplete="off" value={r.code} onInput={(e) => put(i, 'code', e.currentTarget.value)} /></label>
          <label>{t('meaning')}<input id={`fs-ease-label-${i}`} type="text" required maxLength={200} autoComplete="off" value={r.label} onInput={(e) => put(i, 'label', e.currentTarget.value)} /></label>
          <button type="button" class="secondary" aria-label={`${t('removeGrade')} ${r.code || i + 1}`} onClick={() => set(rows.filter((_, j) => j !== i))}>✕</button>
        </div>
      ))}
      <button type="button" class="secondary" id="fs-ease-add" onClick={() => set([...rows, { code: '', label: '' }])}>{t('addGrade')}</button>
    </fieldset>
  );
}

/** AgeOfDam edits the age-of-dam adjustments of the 205-day weaning weight (kg added by the
 * dam's age at calving, in days). None is sent as null: no adjustment is applied. */
function AgeOfDam({ rows, set }: { rows: AgeLine[]; set: (g: AgeLine[]) => void }) {
  const put = (i: number, k: keyof AgeLine, v: string) => set(rows.map((r, j) => (j === i ? { ...r, [k]: v } : r)));
  const field = (i: number, k: keyof AgeLine, kg: boolean) => (
    <label>{t(k)}<input id={`fs-aod-${k}-${i}`} type="number" required inputMode="decimal" step={kg ? 'any' : '1'} min={kg ? -500 : 0} max={kg ? 500 : undefined}
      value={rows[i]![k]} onInput={(e) => put(i, k, e.currentTarget.value)} /></label>
  );
  return (
    <fieldset id="fs-aod">
      <legend>{t('ageOfDam')}</legend>
      <p class="note">{t('ageOfDamNote')}</p>
      {rows.map((_, i) => (
        <div class="row-edit four" key={i}>
          {field(i, 'minDays', false)}{field(i, 'maxDays', false)}{field(i, 'maleKG', true)}{field(i, 'femaleKG', true)}
          <button type="button" class="secondary" aria-label={`${t('removeLine')} ${i + 1}`} onClick={() => set(rows.filter((_, j) => j !== i))}>✕</button>
        </div>
      ))}
      <button type="button" class="secondary" id="fs-aod-add" onClick={() => set([...rows, { minDays: '', maxDays: '', maleKG: '', femaleKG: '' }])}>{t('addLine')}</button>
    </fieldset>
  );
}

function outcome(out: { queued?: boolean; code?: string; message?: string }): string {
  return out.queued ? t('queued') : out.code ? `${t('refused')}: ${out.message}` : t('saved');
}

export function FarmSettings({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: FarmSettingsDocument, variables: { farmID } });
  const s = data?.farm?.settings;
  const [zone, setZone] = useState('');
  const [rules, setRules] = useState('');
  const [organic, setOrganic] = useState(false);
  const [testTags, setTestTags] = useState(false);
  const [female, setFemale] = useState('');
  const [male, setMale] = useState('');
  const [interval, setGap] = useState('');
  const [grades, setGrades] = useState<Grade[]>([]);
  const [ages, setAges] = useState<AgeLine[]>([]);
  const [msg, setMsg] = useState('');
  useEffect(() => {
    if (!s) return;
    setZone(s.timeZone ?? ''); setRules(s.withdrawalRules ?? ''); setOrganic(s.organic); setTestTags(s.allowTestTags);
    setFemale(str(s.minimumBreedingAgeDays.female)); setMale(str(s.minimumBreedingAgeDays.male));
    setGap(str(s.minimumCalvingIntervalDays));
    setGrades((s.calvingEaseScale ?? []).map((g) => ({ code: g.code, label: g.label })));
    setAges((s.weaningAgeOfDam ?? []).map((a) => ({ minDays: str(a.minDays), maxDays: str(a.maxDays), maleKG: str(a.maleKG), femaleKG: str(a.femaleKG) })));
  }, [s]);
  if (error) return <Failed message={error.message} />;
  if (!data?.farm || !s) return <p aria-busy="true">{t('loading')}</p>;
  const me = data.farm.members?.find((m) => m.userID === data.viewer.id);
  const owner = me?.role === 'OWNER';
  const save = async (e: Event) => {
    e.preventDefault();
    const out = await write(`${t('farmSettings')} ${data.farm!.name}`, FarmSettingsSaveDocument, {
      input: {
        farmID, timeZone: zone.trim() || null, withdrawalRules: (rules || null) as WithdrawalRuleSet | null,
        organic, allowTestTags: testTags, minimumBreedingAgeFemaleDays: days(female),
        minimumBreedingAgeMaleDays: days(male), minimumCalvingIntervalDays: days(interval),
        calvingEaseScale: grades.length ? grades.map((g) => ({ code: g.code.trim(), label: g.label.trim() })) : null,
        weaningAgeOfDam: ages.length ? ages.map((a) => ({ minDays: Number(a.minDays), maxDays: Number(a.maxDays), maleKG: Number(a.maleKG), femaleKG: Number(a.femaleKG) })) : null,
      },
    });
    setMsg(outcome(out));
    if (!out.code && !out.queued) again({ requestPolicy: 'network-only' });
  };
  return (
    <section aria-labelledby="fs-title">
      <h1 id="fs-title">{t('farmSettings')}</h1>
      <p class="muted">{data.farm.name} · {s.updatedAt ? `${t('lastChanged')} ${showDate(s.updatedAt)}` : t('neverSet')}</p>
      {!owner && <p class="note" id="fs-readonly">{t('ownerOnly')}</p>}
      <form class="card" onSubmit={save} id="fs-form">
        <fieldset class="plain" disabled={!owner}>
          <legend class="sr">{t('farmSettings')}</legend>
          <label>{t('timeZone')}<input id="fs-zone" type="text" autoComplete="off" placeholder="Europe/London" value={zone} onInput={(e) => setZone(e.currentTarget.value)} /></label>
          <label>{t('withdrawalRules')}<select id="fs-rules" value={rules} onChange={(e) => setRules(e.currentTarget.value)}>
            <option value="">{t('unset')}</option>{RULES.map((r) => <option key={r} value={r}>{t(`rules_${r}` as Key)}</option>)}
          </select></label>
          <label class="check"><input id="fs-organic" type="checkbox" checked={organic} onChange={(e) => setOrganic(e.currentTarget.checked)} />{t('organic')}</label>
          <label class="check"><input id="fs-test-tags" type="checkbox" checked={testTags} onChange={(e) => setTestTags(e.currentTarget.checked)} />{t('allowTestTags')}</label>
          <div class="pair">
            <label>{t('breedingAgeFemale')}<input id="fs-female" type="number" min="1" max="3650" step="1" inputMode="numeric" value={female} onInput={(e) => setFemale(e.currentTarget.value)} /></label>
            <label>{t('breedingAgeMale')}<input id="fs-male" type="number" min="1" max="3650" step="1" inputMode="numeric" value={male} onInput={(e) => setMale(e.currentTarget.value)} /></label>
          </div>
          <label>{t('calvingInterval')}<input id="fs-interval" type="number" min="1" max="1000" step="1" inputMode="numeric" value={interval} onInput={(e) => setGap(e.currentTarget.value)} /></label>
          <p class="note">{t('unsetNote')}</p>
          <Grades rows={grades} set={setGrades} />
          <AgeOfDam rows={ages} set={setAges} />
          <button type="submit" id="fs-save">{t('save')}</button>
        </fieldset>
        {msg && <p role="status" id="fs-status">{msg}</p>}
      </form>
    </section>
  );
}

export function Members({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: MembersDocument, variables: { farmID } });
  const [phone, setPhone] = useState('');
  const [role, setRole] = useState<FarmMemberRole>('READER');
  const [msg, setMsg] = useState('');
  if (error) return <Failed message={error.message} />;
  if (!data?.farm) return <p aria-busy="true">{t('loading')}</p>;
  const members = (data.farm.members ?? []).filter((m) => m.isActive);
  const owner = members.find((m) => m.userID === data.viewer.id)?.role === 'OWNER';
  const done = (out: { queued?: boolean; code?: string; message?: string }) => {
    setMsg(outcome(out));
    if (!out.code && !out.queued) again({ requestPolicy: 'network-only' });
    return !out.code;
  };
  const add = async (e: Event) => {
    e.preventDefault();
    if (done(await write(`${t('addMember')} ${phone}`, MemberAddDocument, { input: { farmID, phoneNumberLocal: phone.trim(), role } }))) setPhone('');
  };
  const setMemberRole = async (id: string, to: FarmMemberRole) => { done(await write(`${t('role')} ${to}`, MemberRoleDocument, { input: { id, role: to } })); };
  const remove = async (id: string, who: string) => {
    done(await write(`${t('removeMember')} ${who}`, MemberRemoveDocument, { input: { id } }));
  };
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">{t('members')}</h1>
      <p class="muted">{data.farm.name}</p>
      {!owner && <p class="note">{t('ownerOnly')}</p>}
      <table class="table" id="member-list">
        <caption class="sr">{t('members')}</caption>
        <thead><tr><th scope="col">{t('name')} · {t('phone')}</th><th scope="col">{t('role')}</th>{owner && <th scope="col"><span class="sr">{t('removeMember')}</span></th>}</tr></thead>
        <tbody>{members.map((m) => {
          const who = m.user.fullName || m.user.phoneNumberLocal;
          return (
            <tr key={m.id}>
              <td>{m.user.fullName ?? '—'}{m.userID === data.viewer.id && <small class="muted"> ({t('you')})</small>}<br /><small>{m.user.phoneNumberLocal}</small></td>
              <td>{owner ? (
                <select aria-label={`${t('role')}: ${who}`} value={m.role} onChange={(e) => void setMemberRole(m.id, e.currentTarget.value as FarmMemberRole)}>
                  {ROLES.map((r) => <option key={r} value={r}>{t(`role_${r}` as Key)}</option>)}
                </select>
              ) : t(`role_${m.role}` as Key)}</td>
              {owner && <td><button type="button" class="secondary" aria-label={`${t('removeMember')}: ${who}`} disabled={m.userID === data.viewer.id} onClick={() => void remove(m.id, who)}>✕</button></td>}
            </tr>
          );
        })}</tbody>
      </table>
      {msg && <p role="status" id="member-status">{msg}</p>}
      {owner && (
        <form class="card" onSubmit={add} id="member-add">
          <h2>{t('addMember')}</h2>
          <p class="note">{t('addMemberNote')}</p>
          <label>{t('phone')}<input id="member-phone" type="tel" autoComplete="off" required value={phone} onInput={(e) => setPhone(e.currentTarget.value)} /></label>
          <label>{t('role')}<select id="member-role" value={role} onChange={(e) => setRole(e.currentTarget.value as FarmMemberRole)}>
            {ROLES.map((r) => <option key={r} value={r}>{t(`role_${r}` as Key)}</option>)}
          </select></label>
          <button type="submit" id="member-save">{t('addMember')}</button>
        </form>
      )}
    </section>
  );
}

/** animalsOf names the animals an entry's values are about (a record's animal_ids, an item's
 * fact), for a link to the page where it is corrected. */
function animalsOf(v: unknown): string[] {
  const o = (v ?? {}) as { animal_ids?: unknown; metadata?: { birth_history?: { animal_id?: unknown } } };
  const ids = Array.isArray(o.animal_ids) ? o.animal_ids : [o.metadata?.birth_history?.animal_id];
  return [...new Set(ids.filter((x): x is string => typeof x === 'string'))].slice(0, 5);
}

/** nameOf is the name of the record or item an entry is about (the snapshot's), so that an
 * entry says what it is without opening its details. */
function nameOf(a: { newValue?: unknown; oldValue?: unknown }): string {
  const v = (a.newValue ?? a.oldValue ?? {}) as { name?: unknown };
  return typeof v.name === 'string' ? recordTitle(v.name).text : '';
}

type Entry = NonNullable<NonNullable<NonNullable<NonNullable<AuditQuery['farm']>['audit']['edges']>[number]>['node']>;

/** recordOf is a record's creation entry as the correction form takes it: the record's id,
 * its name and day from the values the trail kept, and no items (so only a void is offered). */
function recordOf(a: Entry): { id: string; name: string; appliedAt: string; items: [] } {
  const v = (a.newValue ?? {}) as { name?: unknown; applied_at?: unknown };
  return {
    id: a.recordID ?? a.id, name: typeof v.name === 'string' && v.name ? v.name : t('auditRecord'),
    appliedAt: typeof v.applied_at === 'string' ? v.applied_at : a.at, items: [],
  };
}

/** Audit lists the farm's audit trail, newest first, 100 at a time, between two local days: today's
 * entry and its Void come first, not behind "Show more" after an import's hundreds. */
export function Audit({ farmID }: { farmID: string }) {
  const editor = useEditor(farmID);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rows, setRows] = useState<Entry[]>([]);
  const [who, setWho] = useState<Record<string, string>>({});
  const [page, setPage] = useState<{ total: number; next: string | null }>({ total: 0, next: null });
  const [state, setState] = useState<'loading' | 'ready' | string>('loading');
  const load = async (before: string | null) => {
    setState('loading');
    // The days are the device's local days, sent as moments (start of from, end of to).
    const vars = {
      farmID, before, from: from ? new Date(`${from}T00:00:00`).toISOString() : null,
      to: to ? new Date(`${to}T23:59:59.999`).toISOString() : null,
    };
    const r = await client.query(AuditDocument, vars, { requestPolicy: 'network-only' }).toPromise();
    if (r.error || !r.data?.farm) { setState(r.error?.message ?? t('error')); return; }
    const f = r.data.farm;
    setWho(Object.fromEntries((f.members ?? []).map((m) => [m.userID, m.user.fullName || m.user.phoneNumberLocal])));
    // A page read from the end comes oldest first: reversed, the newest leads.
    const got = (f.audit.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? []).reverse();
    setRows((old) => (before ? [...old, ...got] : got));
    setPage({ total: f.audit.totalCount, next: f.audit.pageInfo.hasPreviousPage ? f.audit.pageInfo.startCursor ?? null : null });
    setState('ready');
  };
  useEffect(() => { void load(null); }, [farmID]);
  const filter = (e: Event) => { e.preventDefault(); void load(null); };
  const [msg, setMsg] = useState('');
  // A record's creation may be voided here while no void of it is on the pages read.
  const voided = new Set(rows.filter((a) => a.action === 'void' && a.entity === 'record').map((a) => a.recordID));
  const fixed = (m: string, reread: boolean) => { setMsg(m); if (reread) void load(null); };
  const when = (at: string) => `${showDate(at.slice(0, 10))} ${at.slice(11, 16)} UTC`;
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">{t('audit')}</h1>
      <form class="card" onSubmit={filter} id="audit-filter">
        <div class="pair dates">
          <DateField id="audit-from" label={t('from')} value={from} onValue={setFrom} />
          <DateField id="audit-to" label={t('until')} value={to} onValue={setTo} />
        </div>
        <button type="submit" id="audit-show">{t('show')}</button>
      </form>
      {state !== 'ready' && state !== 'loading' && <Failed message={state} />}
      {editor && <p class="note">{t('voidFromTrail')}</p>}
      <div role="status" id="audit-fix-status">{msg}</div>
      <p role="status" id="audit-count">{state === 'loading' ? t('loading') : `${rows.length} / ${page.total}`}</p>
      {rows.length === 0 && state === 'ready' ? <p>{t('none')}</p> : (
        <ol class="outbox" id="audit-list">{rows.map((a) => (
          <li key={a.id} id={`audit-${a.id}`}>
            <strong>{t(`audit_${a.action}` as Key) ?? a.action}</strong>{` · ${a.entity === 'record' ? t('auditRecord') : t('auditItem')}${nameOf(a) ? ` “${nameOf(a)}”` : ''} · ${when(a.at)} · ${a.userID ? who[a.userID] ?? a.userID : t('operator')}`}
            {a.reason && <p>{t('reason')}: {a.reason}</p>}
            {editor && a.action === 'create' && animalsOf(a.newValue).map((id, i, all) => <p key={id}><a href={`/farms/${farmID}/animals/${id}`}>{t('correctOnAnimal')}{all.length > 1 ? ` (${i + 1})` : ''}</a></p>)}
            {editor && a.action === 'create' && a.entity === 'record' && a.recordID && !voided.has(a.recordID) && <Fix farmID={farmID} entry={recordOf(a)} done={fixed} title={t('void')} />}
            <details><summary>{t('details')}</summary>
              {a.oldValue && <><h2>{t('before')}</h2><pre>{JSON.stringify(a.oldValue, null, 1)}</pre></>}
              {a.newValue && <><h2>{t('after')}</h2><pre>{JSON.stringify(a.newValue, null, 1)}</pre></>}
            </details>
          </li>
        ))}</ol>
      )}
      {page.next && <button type="button" id="audit-more" class="secondary" disabled={state === 'loading'} onClick={() => void load(page.next)}>{t('more')}</button>}
    </section>
  );
}
