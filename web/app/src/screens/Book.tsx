// Correcting the herd book from the app (docs/audit.md): on an animal's timeline an EDITOR
// voids a record or one of its items, or amends an item's values, always with a reason; the
// old entry stays in the book, marked, and the audit trail shows who, when and why. The
// animal's groups on a day, each ended by a dated membership_end fact. READERs see neither
// form (the server refuses them anyway; its refusal is shown as it is).
import { useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { client } from '../client';
import { ItemAmendDocument, ItemVoidDocument, MedicinesDocument, MembershipEndDocument, MyRoleDocument, RecordAmendDocument, RecordItemTextsDocument, RecordVoidDocument } from '../graphql/generated';
import { decimal, fromKg, prefs, showDate, showWeight, t, toKg, type Key } from '../i18n';
import { write, type WriteOutcome } from '../outbox';
import { DateField } from './DateField';

/** useEditor tells whether the viewer may correct the farm's book (EDITOR or OWNER). The
 * role is read again on each screen that asks, so a role changed meanwhile shows. */
export function useEditor(farmID: string): boolean {
  const [{ data }] = useQuery({ query: MyRoleDocument, variables: { farmID }, requestPolicy: 'cache-and-network' });
  const me = data?.farm?.members?.find((m) => m.isActive && m.userID === data.viewer.id);
  return me?.role === 'OWNER' || me?.role === 'EDITOR';
}

/** said is what a write's outcome tells the user: sent, queued, or the server's refusal. */
export function said(out: WriteOutcome<unknown>, ok: Key): string {
  if (out.queued) return t('queued');
  return out.data !== undefined && !out.code ? t(ok) : `${t('refused')}: ${out.message ?? t('error')}`;
}

type Fact = Record<string, unknown> & { kind?: string };
export interface Item { id: string; name?: string | null; metadata?: unknown }
export interface Entry { id: string; name: string; appliedAt: string; description?: string | null; items?: Item[] | null }

export const factOf = (it: Item): Fact | undefined => (it.metadata as { birth_history?: Fact } | null)?.birth_history;
const DATES = ['date', 'start_date', 'end_date'] as const;
/** day is the day a fact dates its record by (the server's rule: date, else start_date). */
const day = (f: Fact | undefined): string | undefined =>
  typeof f?.date === 'string' ? f.date : typeof f?.start_date === 'string' ? f.start_date : undefined;

/** values are an item's fact values as a person reads them: a weight, a treatment's medicine
 * (by its name in medicines, the farm's list, when known), dose and batch, the days of its
 * fact. */
function values(it: Item, medicines: Record<string, string> = {}): string {
  const f = factOf(it);
  if (!f) return '';
  const parts: string[] = [];
  if (f.kg != null) parts.push(showWeight(Number(f.kg)));
  if (f.kind === 'treatment') {
    const m = typeof f.medicine_id === 'string' ? medicines[f.medicine_id] : undefined;
    if (m) parts.push(m);
    if (typeof f.dose === 'number') parts.push(`${t('dose')} ${decimal(f.dose, 3)}${typeof f.unit === 'string' ? ` ${f.unit}` : ''}`);
    if (typeof f.batch === 'string' && f.batch) parts.push(`${t('batch')} ${f.batch}`);
  }
  for (const d of DATES) if (typeof f[d] === 'string') parts.push(showDate(f[d] as string));
  return parts.join(' · ');
}
const summary = (it: Item): string => [it.name ? recordTitle(it.name).text : factOf(it)?.kind ?? '—', values(it)].filter(Boolean).join(': ');

// The names the server gives the records it writes: a fact recorded on its own ("Birth
// history: weight"), a treatment ("Medicine book: treatment"), a fact of a register edit
// ("Register: weight") or import ("Register import: TAG"), a calving ("Calving").
const SERVER_NAMES: Array<[RegExp, Key]> = [
  [/^Birth history: ([a-z ]+)$/, 'titleBirthHistory'], [/^Register: ([a-z ]+)$/, 'titleRegister'],
  [/^Medicine book: (treatment)$/, 'titleMedicineBook'],
];

/** NOTE_NAME is the name of the record a note is (type OTHER, its text in the description,
 * naming the animal; the crush writes them, Forms.tsx): recordTitle shows it in the user's
 * language. */
export const NOTE_NAME = 'Note';

/** recordTitle is a record's (or item's) name as the user reads it: one the server gave, in
 * the user's language (ours: true); one a person typed, as typed (the farm's own words). */
export function recordTitle(name: string): { text: string; ours: boolean } {
  if (name === 'Calving') return { text: t('calving'), ours: true };
  if (name === NOTE_NAME) return { text: t('crushNote'), ours: true };
  const imported = name.match(/^Register import: (.+)$/);
  // French puts a no-break space before the colon.
  const sep = prefs.lang === 'fr' ? '\u00a0: ' : ': ';
  if (imported) return { text: `${t('titleImport')}${sep}${imported[1]}`, ours: true };
  for (const [re, key] of SERVER_NAMES) {
    const m = name.match(re);
    const kind = m ? `rec_${m[1]!.replace(/ /g, '_')}` : '';
    if (m && kind in KIND_KEYS) return { text: `${t(key)}${sep}${t(kind as Key)}`, ours: true };
  }
  return { text: name, ours: false };
}
// The fact kinds the catalogues name (i18n.ts, rec_*).
const KIND_KEYS: Record<string, true> = Object.fromEntries(['profile', 'castration', 'exposure', 'membership', 'membership_end', 'purchase',
  'movement_in', 'movement_out', 'birth', 'identifier', 'death', 'sale', 'weight', 'dna_parentage', 'treatment', 'heat',
  'insemination', 'hand_mating', 'embryo_transfer', 'pregnancy_check', 'weaning', 'pedigree'].map((k) => [`rec_${k}`, true]));

type Action = 'amend' | 'voidItem' | 'voidRecord';

/** Fix is the correction form of one timeline entry: amend an item, void it, or void the record.
 * Given no items (the audit trail's record entries), it offers to void the record only. */
export function Fix({ farmID, entry, done, title = t('correct') }: { farmID: string; entry: Entry; done: (msg: string, changed: boolean) => void; title?: string }) {
  const items = entry.items ?? [];
  const amendable = items.filter((it) => { const f = factOf(it); return !!f && (f.kg != null || DATES.some((d) => typeof f[d] === 'string')); });
  const [action, setAction] = useState<Action>(amendable.length ? 'amend' : 'voidRecord');
  const [chosen, setItemID] = useState('');
  // The chosen item, or the first one: the list may change under the form (a correction sent
  // from the outbox replaces an item, and the page reads the record again).
  const item = items.find((it) => it.id === chosen && (action !== 'amend' || amendable.includes(it))) ?? (action === 'amend' ? amendable[0] : items[0]);
  const itemID = item?.id ?? '';
  const fact = item ? factOf(item) : undefined;
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const value = (k: string): string => typed[`${itemID}:${k}`] ?? (k === 'kg'
    ? (fact?.kg != null ? String(Math.round(fromKg(Number(fact.kg)) * 10) / 10) : '')
    : typeof fact?.[k] === 'string' ? (fact[k] as string) : '');
  const setValue = (k: string, v: string) => setTyped((o) => ({ ...o, [`${itemID}:${k}`]: v }));
  const id = `fix-${entry.id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    let out: WriteOutcome<unknown>;
    if (action === 'voidRecord') {
      out = await write(`${t('voidRecord')} ${recordTitle(entry.name).text}`, RecordVoidDocument, { input: { farmID, id: entry.id, reason } });
    } else if (action === 'voidItem') {
      out = await write(`${t('voidItem')} ${item?.name ?? ''}`, ItemVoidDocument, { input: { farmID, recordID: entry.id, id: itemID, reason } });
    } else {
      const next: Fact = { ...fact };
      for (const d of DATES) if (typeof fact?.[d] === 'string') next[d] = value(d);
      if (fact?.kg != null) next.kg = toKg(Number(value('kg')));
      const metadata = { ...(item?.metadata as Record<string, unknown>), birth_history: next };
      const was = day(fact), now = day(next), label = `${t('amendItem')} ${item?.name ?? ''}`;
      // A record dated by its one fact gets the new day too (recordAmend), its item's text
      // read first and kept; offline, or when that read fails, the item alone is corrected.
      const texts = items.length === 1 && was && now && now !== was && entry.appliedAt.slice(0, 10) === was
        ? await client.query(RecordItemTextsDocument, { id: entry.id }, { requestPolicy: 'network-only' }).toPromise() : null;
      const node = texts?.data?.node;
      if (node && 'items' in node && node.items?.length === 1 && node.items[0]!.id === itemID) {
        out = await write(label, RecordAmendDocument, { input: {
          farmID, id: entry.id, reason, appliedAt: now + entry.appliedAt.slice(10),
          items: [{ name: item?.name ?? null, description: node.items[0]!.description ?? null, metadata }],
        } });
      } else {
        out = await write(label, ItemAmendDocument, { input: { farmID, recordID: entry.id, id: itemID, reason, metadata } });
      }
    }
    setBusy(false);
    const ok = !out.code && !out.queued && out.data !== undefined;
    if (ok) setReason('');
    // After a refusal too the page is read again: the entry may have changed meanwhile.
    done(said(out, action === 'amend' ? 'amended' : 'voided'), ok || !!out.code);
  };
  return (
    <details class="fix" id={id}>
      <summary>{title}<span class="sr">{` ${recordTitle(entry.name).text} ${showDate(entry.appliedAt)}`}</span></summary>
      <form onSubmit={submit} aria-label={`${title}: ${recordTitle(entry.name).text}`}>
        <fieldset class="choice stack"><legend>{t('whatToDo')}</legend>
          {amendable.length > 0 && <label><input type="radio" name={`${id}-action`} value="amend" checked={action === 'amend'} onChange={() => setAction('amend')} /> {t('amendItem')}</label>}
          {items.length > 1 && <label><input type="radio" name={`${id}-action`} value="voidItem" checked={action === 'voidItem'} onChange={() => setAction('voidItem')} /> {t('voidItem')}</label>}
          <label><input type="radio" name={`${id}-action`} value="voidRecord" checked={action === 'voidRecord'} onChange={() => setAction('voidRecord')} /> {t('voidRecord')}</label>
        </fieldset>
        {action !== 'voidRecord' && items.length > 1 && (
          <label>{t('item')}<select class="fix-item" value={itemID} onChange={(e) => setItemID(e.currentTarget.value)}>
            {(action === 'amend' ? amendable : items).map((it) => <option key={it.id} value={it.id}>{summary(it)}</option>)}
          </select></label>
        )}
        {action === 'amend' && fact && <>
          {fact.kg != null && <label>{t('weight')} ({prefs.unit})<input class="fix-kg" type="number" inputMode="decimal" min="0.1" step="0.1" required value={value('kg')} onInput={(e) => setValue('kg', e.currentTarget.value)} /></label>}
          {DATES.filter((d) => typeof fact[d] === 'string').map((d) => (
            <DateField key={d} label={t(`fact_${d}` as Key)} class={`fix-${d}`} required value={value(d)} onValue={(v) => setValue(d, v)} />
          ))}
        </>}
        <label>{t('reason')}<textarea class="fix-reason" required maxLength={1000} rows={2} value={reason} onInput={(e) => setReason(e.currentTarget.value)} /></label>
        <p class="note">{action === 'amend' ? t('amendNote') : action === 'voidRecord' ? t('voidRecordNote') : t('voidNote')}</p>
        <button type="submit" class="fix-save" disabled={busy}>{action === 'amend' ? t('saveCorrection') : t('void')}</button>
      </form>
    </details>
  );
}

/** RecordName is a record's name as recordTitle gives it. */
export function RecordName({ name }: { name: string }) {
  const n = recordTitle(name);
  return n.ours ? <span>{n.text}</span> : <span translate={false}>{n.text}</span>;
}

/** Timeline lists the animal's records in force, each with its values and, for an EDITOR, its correction form. */
export function Timeline({ farmID, records, total, editor, changed }: { farmID: string; records: Entry[]; total: number; editor: boolean; changed: () => void }) {
  const [msg, setMsg] = useState('');
  // A treatment names its medicine by id: the farm's medicines give the names, read only when
  // the timeline has a treatment.
  const treated = records.some((r) => (r.items ?? []).some((it) => factOf(it)?.kind === 'treatment'));
  const [{ data: md }] = useQuery({ query: MedicinesDocument, variables: { farmID }, pause: !treated });
  const medicines: Record<string, string> = Object.fromEntries((md?.farm?.medicines.edges ?? []).flatMap((e) => (e?.node ? [[e.node.id, e.node.name]] : [])));
  const done = (m: string, reread: boolean) => { setMsg(m); if (reread) changed(); };
  return (
    <article class="card wide" aria-labelledby="tl"><h2 id="tl">{t('timeline')} ({total})</h2>
      {editor && <p class="note">{t('correctNote')} <a href={`/farms/${farmID}/audit`}>{t('audit')}</a></p>}
      <div role="status" id="fix-status">{msg}</div>
      <ol class="timeline" id="timeline">{records.map((r) => (
        <li key={r.id}>
          {/* A name the server gave is shown in the user's language; one a person typed is
              the farm's data, not the app's wording: translate="no" says so to translators. */}
          <time>{showDate(r.appliedAt)}</time> <RecordName name={r.name} />
          {(r.items ?? []).some((it) => values(it, medicines)) && <small class="muted"> · {(r.items ?? []).map((it) => values(it, medicines)).filter(Boolean).join('; ')}</small>}
          {/* A note's text (or any record's description): the farm's words, as written. */}
          {r.description && <p class="muted timeline-text" translate={false}>{r.description}</p>}
          {editor && <Fix farmID={farmID} entry={r} done={done} />}
        </li>
      ))}</ol>
    </article>
  );
}

/** Groups lists the groups the animal is in on the page's day; an EDITOR ends a membership
 * from a day on (a membership_end fact: the last day in the group is the day before). */
export function Groups({ farmID, animalID, asOf, groupIDs, names, editor, changed }: {
  farmID: string; animalID: string; asOf: string; groupIDs: string[]; names: Record<string, string>; editor: boolean; changed: () => void;
}) {
  const [msg, setMsg] = useState('');
  const [day, setDay] = useState<Record<string, string>>({});
  const end = async (e: Event, groupID: string) => {
    e.preventDefault();
    const date = day[groupID] ?? asOf;
    const out = await write(`${t('endMembership')} ${names[groupID] ?? ''}`, MembershipEndDocument, {
      input: { farmID, fact: { membershipEnd: { animalID, groupID, date } } },
    });
    setMsg(said(out, 'membershipEnded'));
    if (!out.code && !out.queued && out.data !== undefined) changed();
  };
  return (
    <article class="card" aria-labelledby="gr"><h2 id="gr">{t('groups')} ({showDate(asOf)})</h2>
      {groupIDs.length === 0 ? <p>{t('none')}</p> : (
        <ul class="plain" id="animal-groups">{groupIDs.map((g) => (
          <li key={g}>
            <strong>{names[g] ?? g}</strong>
            {editor && (
              <details class="fix" id={`end-${g}`}>
                <summary>{t('endMembership')}<span class="sr">: {names[g] ?? g}</span></summary>
                <form onSubmit={(e) => void end(e, g)} aria-label={`${t('endMembership')}: ${names[g] ?? g}`}>
                  <DateField label={t('leftOn')} class="end-date" required value={day[g] ?? asOf} onValue={(v) => setDay((o) => ({ ...o, [g]: v }))} />
                  <p class="note">{t('endNote')}</p>
                  <button type="submit" class="end-save">{t('endMembership')}</button>
                </form>
              </details>
            )}
          </li>
        ))}</ul>
      )}
      <div role="status" id="groups-status">{msg}</div>
    </article>
  );
}
