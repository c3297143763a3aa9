// Quick forms for the yard: a weigh session at the crush (scan or type an EID, enter the
// weight, next), a treatment of an animal, a group or a scanned list, and a move to a group
// of typed tags or a scanned list. Offline, all queue.
import { useEffect, useRef, useState } from 'preact/hooks';
import { client } from '../client';
import { useQuery } from '@urql/preact';
import { CalvingDocument, CalvingFormDocument, CrushAnimalDocument, CrushDueDocument, CrushNoteDocument, FactDocument, GroupsDocument, MoveDocument, RegisterDocument, WeighDocument, type OutsideFragment } from '../graphql/generated';
import { count, fromKg, prefs, showDate, showWeight, t, toKg, today, type Key } from '../i18n';
import type { DeviceLine } from '../devices/read';
import type { ScaleReading } from '../devices/scale';
import { Devices } from './Devices';
import { write, type WriteOutcome } from '../outbox';
import { NOTE_NAME, said } from './Book';
import { useAnimalWithdrawal } from '../withdrawal';
import { kept as keptRegister, type Row } from '../sync';
import { matches } from './Register';
import { DateField } from './DateField';

export interface Found { id: string; tag: string }

/** find looks an animal up by tag, EID or last digits: the server, or the kept register offline. */
export async function find(farmID: string, q: string): Promise<Found[]> {
  const r = await client.query(RegisterDocument, { farmID, first: 5, search: q.trim(), status: 'ON_FARM', asOf: today() }, { requestPolicy: 'network-only' }).toPromise();
  if (r.data?.farm) return r.data.farm.animals.edges?.flatMap((e) => (e?.node ? [{ id: e.node.id, tag: e.node.tag }] : [])) ?? [];
  const kept = await keptRegister(farmID);
  return (kept?.rows ?? []).filter((x) => matches(x, q)).slice(0, 5).map((x) => ({ id: x.id, tag: x.tag }));
}

/** Parent picks a sire or a donor: a herd animal by its tag, or one of the farm's outside
 * animals (an AI sire, an embryo donor). optional leaves the tag free to stay empty. */
export function Parent({ id, label, outside, pick, setPick, tag, setTag, optional, error }: {
  id: string; label: string; outside: OutsideFragment[]; pick: string; setPick: (v: string) => void; tag: string; setTag: (v: string) => void;
  optional?: boolean; error?: string;
}) {
  // A refusal of the parent (error) is shown under it and describes both of its controls.
  const bad = error ? { 'aria-invalid': true, 'aria-describedby': `${id}-error` } : {};
  return (
    <div>
      <label>{label}<select id={id} {...bad} value={pick} onChange={(e) => setPick(e.currentTarget.value)}>
        <option value="">{t('herdAnimal')}</option>
        {outside.length > 0 && <optgroup label={t('outsideAnimals')}>
          {outside.map((o) => <option key={o.id} value={o.id}>{o.name}{o.breed ? ` · ${o.breed}` : ''}{o.batch ? ` · ${o.batch}` : ''}</option>)}
        </optgroup>}
      </select></label>
      {pick === '' && <label>{label}: {t('tagOf')}<input id={`${id}-tag`} type="text" autoComplete="off" required={!optional} {...bad} value={tag} onInput={(e) => setTag(e.currentTarget.value)} /></label>}
      {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}

/** findOne is the one animal a tag, EID or last digits name: the only match, or the exact tag. */
export async function findOne(farmID: string, q: string): Promise<Found | null> {
  const list = await find(farmID, q);
  return list.length === 1 ? list[0]! : list.find((x) => x.tag === q.trim()) ?? null;
}

/** noteTime dates a note by its day, as the server dates a fact's record (midnight UTC). */
const noteTime = (date: string) => `${date}T00:00:00Z`;

type Medicine = { id: string; name: string; withdrawalMeatDays?: number | null; withdrawalMilkHours?: number | null };

/** useGroupsAndMedicines reads the farm's groups and medicines once for a screen. */
function useGroupsAndMedicines(farmID: string): { groups: Array<{ id: string; name: string }>; medicines: Medicine[] } {
  const [out, setOut] = useState<{ groups: Array<{ id: string; name: string }>; medicines: Medicine[] }>({ groups: [], medicines: [] });
  useEffect(() => {
    void client.query(GroupsDocument, { farmID }).toPromise().then((r) => setOut({
      groups: r.data?.farm?.groups.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [],
      medicines: r.data?.farm?.medicines.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [],
    }));
  }, [farmID]);
  return out;
}

export function Weigh({ farmID }: { farmID: string }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Found[] | null>(null);
  const [animal, setAnimal] = useState<Found | null>(null);
  const [weight, setWeight] = useState('');
  const [date, setDate] = useState(today());
  const [done, setDone] = useState<Array<{ tag: string; text: string }>>([]);
  const [msg, setMsg] = useState('');
  const [live, setLive] = useState<ScaleReading | null>(null);
  // What else the crush does to the animal shown: a treatment (the medicine, dose and unit
  // stay chosen for the next animal: a run through the crush is usually all given the same),
  // a draft to a group and a note (both the shown animal's own, cleared after its save).
  const { groups, medicines } = useGroupsAndMedicines(farmID);
  const [medicine, setMedicine] = useState('');
  const [dose, setDose] = useState('');
  const [unit, setUnit] = useState('ml');
  const [draft, setDraft] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  // The writes already made (sent or queued) for the animal shown, by what they wrote: after a
  // refusal, Save again sends only what was not written, never a write twice.
  const written = useRef(new Set<string>());
  const eid = useRef<HTMLInputElement>(null);
  const kg = useRef<HTMLInputElement>(null);
  // The scale's last stable weight; armed once the scale has shown something other than the
  // weight just saved (the animal before may still stand on it); typed once the farmer typed
  // a weight, which the scale then leaves alone.
  const stable = useRef<number | null>(null);
  const armed = useRef(true);
  const saved = useRef<number | null>(null);
  const typed = useRef(false);
  // The code of the animal in the crush: panel readers send it again and again while it
  // stands in their field, which must neither clear a weight typed nor weigh it twice.
  const held = useRef('');
  // Back in the EID field (after a cancel, say), its last code is selected: the next code a
  // wedge reader types replaces it instead of being appended to it.
  useEffect(() => { if (animal) kg.current?.focus(); else { eid.current?.focus(); eid.current?.select(); } }, [animal]);
  // Another animal in the crush: the draft and the note were the last one's.
  useEffect(() => { written.current.clear(); setDraft(''); setNote(''); }, [animal?.id]);

  // A weight the scale filled in is saved as the scale gave it, not as the field rounds it
  // in the user's unit (380.0 kg shown as 837.8 lb is 380.0 kg, not 380.02).
  const filled = useRef<{ text: string; kg: number } | null>(null);
  const fill = (v: number) => {
    const text = String(Math.round(fromKg(v) * 10) / 10);
    filled.current = { text, kg: v };
    setWeight(text);
  };
  const choose = (a: Found) => {
    typed.current = false;
    setAnimal(a);
    if (armed.current && stable.current != null) fill(stable.current);
  };
  // Two codes read in quick succession: the answer to the later one wins, whichever comes first.
  const asked = useRef(0);
  const look = async (text: string) => {
    const n = ++asked.current;
    const list = await find(farmID, text);
    if (n !== asked.current) return;
    setFound(list);
    if (list.length === 1) choose(list[0]!);
  };
  const lookup = async (e: Event) => {
    e.preventDefault();
    // The field's own value: a keyboard-wedge reader types its digits and Enter in one burst.
    const text = eid.current?.value ?? q;
    held.current = '';
    setQ(text);
    await look(text);
  };
  // A reader in keyboard mode types into whatever has the focus: the weight field once an
  // animal is shown. Fifteen digits or more are never a weight but the next animal's tag.
  // The same in the treatment's dose and the note: a code is never saved as either.
  const wedgeIntoWeight = (e: KeyboardEvent) => {
    const v = e.currentTarget instanceof HTMLInputElement ? e.currentTarget.value.trim() : '';
    if (e.key !== 'Enter' || !/^[0-9]{15,}$/.test(v)) return;
    e.preventDefault();
    held.current = '';
    if (e.currentTarget === e.target && (e.currentTarget as HTMLElement).id === 'crush-dose') setDose('');
    setMsg(t('eidNotWeight'));
    setAnimal(null);
    setWeight('');
    setQ(v);
    void look(v);
  };
  const onLine = (l: DeviceLine) => {
    if (l.kind === 'eid') {
      if (l.eid === held.current) return;
      held.current = l.eid;
      setAnimal(null);
      setWeight('');
      setQ(l.eid);
      setMsg(`${t('eidRead')}: ${l.eid}`);
      void look(l.eid);
    } else if (l.kind === 'notAnimal') {
      setMsg(`${t('notAnimalCode')}: ${l.line}`);
    } else if (l.kind === 'scale') {
      const r = l.reading;
      setLive(r);
      const v = r.kind === 'weight' && r.stable && r.kg > 0 ? r.kg : null;
      if (v == null || saved.current == null || Math.abs(v - saved.current) >= 0.05) armed.current = true;
      if (v != null && armed.current) {
        const changed = stable.current == null || Math.abs(stable.current - v) >= 0.05;
        stable.current = v;
        if (animal && !typed.current && (changed || weight === '')) fill(v);
      }
    }
  };
  // Save · next writes what is filled in for the animal shown, each its own write through
  // the outbox (its own Idempotency-Key, queued offline): the weight, the treatment, the
  // draft to a group, the note; at least one. A refusal keeps the animal on screen with the
  // server's reason; what was written stays written and is not sent again.
  const save = async (e: Event) => {
    e.preventDefault();
    if (!animal || busy) return;
    const a = animal;
    const v = weight === '' ? null : filled.current && filled.current.text === weight ? filled.current.kg : toKg(Number(weight));
    const med = medicines.find((m) => m.id === medicine);
    const group = groups.find((g) => g.id === draft);
    const text = note.trim();
    const plans: Array<{ key: string; run: () => Promise<WriteOutcome<unknown>>; say: (o: WriteOutcome<unknown>) => string }> = [];
    if (v != null) {
      const vars = { input: { farmID, animalID: a.id, date, kg: v } };
      plans.push({ key: JSON.stringify(['weight', vars]), run: () => write(`${t('weigh')} ${a.tag}`, WeighDocument, vars),
        say: (o) => `${showWeight(v)} · ${o.queued ? t('queued') : o.code ? `${t('refused')}: ${o.message}` : t('saved')}` });
    }
    if (med) {
      const vars = { input: { farmID, fact: { treatment: { medicineID: med.id, animalID: a.id, groupID: null, date, dose: dose ? Number(dose) : null, unit: dose ? unit : null } } } };
      plans.push({ key: JSON.stringify(['treat', vars]), run: () => write(`${t('treat')} ${a.tag}`, FactDocument, vars),
        say: (o) => `${med.name}${dose ? ` ${dose} ${unit}` : ''}: ${said(o, 'treatmentSaved')}` });
    }
    if (group) {
      const vars = { input: { farmID, fact: { membership: { animalID: a.id, groupID: group.id, startDate: date } } } };
      plans.push({ key: JSON.stringify(['draft', vars]), run: () => write(`${t('moveTo')} ${a.tag} → ${group.name}`, MoveDocument, vars),
        say: (o) => `→ ${group.name}: ${said(o, 'moved')}` });
    }
    if (text) {
      const vars = { input: { farmID, animalIDs: [a.id], name: NOTE_NAME, type: 'OTHER' as const, appliedAt: noteTime(date), description: text } };
      plans.push({ key: JSON.stringify(['note', a.id, date, text]), run: () => write(`${t('crushNote')} ${a.tag}`, CrushNoteDocument, vars),
        say: (o) => `${t('crushNote')}: ${said(o, 'noteSaved')}` });
    }
    if (plans.length === 0) { setMsg(t('crushNothing')); return; }
    setBusy(true);
    const parts: string[] = [];
    let refusal = '';
    try {
      for (const p of plans) {
        if (written.current.has(p.key)) continue;
        const out = await p.run();
        if (!out.code) written.current.add(p.key);
        else refusal ||= `${t('refused')}: ${out.message ?? t('error')}`;
        parts.push(p.say(out));
      }
    } finally { setBusy(false); }
    const line = parts.join('; ');
    setDone((d) => [{ tag: a.tag, text: line }, ...d]);
    setMsg(refusal || line);
    if (!refusal) {
      // The animal weighed may stay on the scale a while: its weight is not the next one's.
      saved.current = v ?? stable.current; armed.current = false; stable.current = null;
      written.current.clear();
      setAnimal(null); setFound(null); setQ(''); setWeight(''); setDraft(''); setNote('');
    }
  };
  return (
    <section aria-labelledby="weigh-title">
      <h1 id="weigh-title">{t('weigh')}</h1>
      <DateField id="weigh-date" label={t('date')} inline value={date} onValue={setDate} />
      {!animal ? (
        <form class="card" onSubmit={lookup}>
          <label>{t('eidOrTag')}<input id="weigh-eid" ref={eid} type="text" inputMode="numeric" autoComplete="off" required value={q} onInput={(e) => setQ(e.currentTarget.value)} /></label>
          <button type="submit" id="weigh-find">{t('search')}</button>
          {found && found.length === 0 && <p role="status">{t('notFound')}</p>}
          {found && found.length > 1 && <ul class="choices">{found.map((f) => <li key={f.id}><button type="button" class="secondary" onClick={() => choose(f)}>{f.tag}</button></li>)}</ul>}
        </form>
      ) : (
        <form class="card" onSubmit={save}>
          <p id="weigh-animal"><strong>{animal.tag}</strong> <button type="button" class="link" aria-label={t('cancel')} onClick={() => { held.current = ''; setAnimal(null); }}>✕</button></p>
          <AnimalCard farmID={farmID} id={animal.id} date={date} />
          <label>{t('weight')} ({prefs.unit})<input id="weigh-kg" ref={kg} type="number" inputMode="decimal" min="0.1" step="0.1" value={weight}
            onInput={(e) => { typed.current = true; setWeight(e.currentTarget.value); }} onKeyDown={wedgeIntoWeight} /></label>
          <fieldset id="crush-treat">
            <legend>{t('treat')}</legend>
            <label>{t('medicine')}<select id="crush-medicine" value={medicine} onChange={(e) => setMedicine(e.currentTarget.value)}>
              <option value="">{t('crushNoTreatment')}</option>
              {medicines.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
            </select></label>
            {medicine && <>
              <div class="pair">
                <label>{t('dose')}<input id="crush-dose" type="number" min="0" step="any" inputMode="decimal" value={dose} onInput={(e) => setDose(e.currentTarget.value)} onKeyDown={wedgeIntoWeight} /></label>
                <label>{t('unit')}<input id="crush-unit" type="text" value={unit} onInput={(e) => setUnit(e.currentTarget.value)} /></label>
              </div>
              <ClearDates id="crush-clear" date={date} medicine={medicines.find((m) => m.id === medicine)} />
            </>}
          </fieldset>
          <label>{t('crushDraft')}<select id="crush-group" value={draft} onChange={(e) => setDraft(e.currentTarget.value)}>
            <option value="">{t('crushNoDraft')}</option>
            {groups.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
          </select></label>
          <label>{t('crushAddNote')}<input id="crush-note" type="text" autoComplete="off" maxLength={10000} value={note} onInput={(e) => setNote(e.currentTarget.value)} onKeyDown={wedgeIntoWeight} /></label>
          <p class="note" id="crush-save-note">{t('crushSaveNote')}</p>
          <button type="submit" id="weigh-save" disabled={busy} aria-describedby="crush-save-note">{t('save')} · {t('next')}</button>
        </form>
      )}
      {live && <p id="weigh-scale" class="muted">{t('onScale')}: {live.kind === 'weight' ? `${showWeight(live.kg)} · ${t(live.stable ? 'stable' : 'moving')}` : t(live.kind)}</p>}
      {msg && <p role="status" id="weigh-status">{msg}</p>}
      <Devices onLine={onLine} />
      <p class="note"><a href={`/farms/${farmID}/import/weighings`} id="weigh-import">{t('scaleSession')}</a></p>
      {done.length > 0 && <><h2>{t('session')}</h2><ol class="session" id="weigh-session">{done.map((d, i) => <li key={i}>{d.tag}: {d.text}</li>)}</ol></>}
    </section>
  );
}

/** AnimalCard is what the crush needs to know of the animal: its last weight, its
 * withdrawal, its latest notes (three, newest first) and, for a female scanned in calf, when she is due. Read from the server (or
 * Graphcache's kept copy offline); the farm's withdrawals and due list once for the session. */
function AnimalCard({ farmID, id, date }: { farmID: string; id: string; date: string }) {
  const [{ data, fetching }] = useQuery({ query: CrushAnimalDocument, variables: { id, asOf: date } });
  const wd = useAnimalWithdrawal(farmID, id, date);
  const [{ data: dd }] = useQuery({ query: CrushDueDocument, variables: { farmID, asOf: date } });
  const node = data?.node;
  const a = node && 'tag' in node ? node : null;
  const p = a?.profile;
  // Offline, without Graphcache's copy of the animal: the kept register's row has its weight.
  const [row, setRow] = useState<Row | null | undefined>(undefined);
  useEffect(() => {
    if (!a) void keptRegister(farmID).then((k) => setRow(k?.rows.find((r) => r.id === id) ?? null), () => setRow(null));
  }, [!a, farmID, id]);
  const w = wd.line;
  const due = dd?.farm?.due.edges.find((e) => e.node.animalID === id)?.node;
  // What is not known on this device is said so, never shown as "no withdrawal".
  const weightText = p ? (p.weightKg != null ? <>{showWeight(p.weightKg)}{p.weighedOn && <> · {showDate(p.weighedOn)}</>}</> : t('noWeightYet'))
    : fetching ? '…' : row?.profile ? (row.profile.weightKg != null ? showWeight(row.profile.weightKg) : t('noWeightYet')) : t('notKnownHere');
  return (
    <dl class="crush-card" id="weigh-card">
      {a?.name && <><dt>{t('name')}</dt><dd translate={false}>{a.name}</dd></>}
      <dt>{t('lastWeight')}</dt>
      <dd id="card-weight">{weightText}</dd>
      <dt>{t('withdrawal')}</dt>
      <dd id="card-withdrawal" class={w ? 'warning' : undefined}>{w ? <>{t('meatClear')} {showDate(w.meatClearOn)}{w.milkClearAt && <> · {t('milkClear')} {showDate(w.milkClearAt)}</>}</> : wd.line === null ? t('noWithdrawal') : wd.fetching ? '…' : t('notKnownHere')}</dd>
      {a && a.notes.length > 0 && <><dt>{t('crushNotes')}</dt><dd id="card-notes"><ul class="plain">{a.notes.map((n) => (
        <li key={n.id}><time>{showDate(n.appliedAt)}</time> · <span translate={false}>{n.description}</span></li>
      ))}</ul></dd></>}
      {due && <><dt>{t('dueToCalve')}</dt><dd id="card-due">{due.expectedDate ? showDate(due.expectedDate) : '—'}{due.expectedFrom && due.expectedTo && due.expectedFrom !== due.expectedTo && <> ({showDate(due.expectedFrom)} – {showDate(due.expectedTo)})</>}</dd></>}
    </dl>
  );
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** ClearDates shows, before saving, when meat and milk clear by the label's periods (the
 * farm's rules, a course's last day or the vet's longer periods can only make them later). */
function ClearDates({ id = 'treat-clear', date, medicine }: { id?: string; date: string; medicine: { withdrawalMeatDays?: number | null; withdrawalMilkHours?: number | null } | undefined }) {
  if (!medicine || !date) return null;
  const meat = medicine.withdrawalMeatDays, milk = medicine.withdrawalMilkHours;
  return (
    <p class="note" id={id} role="status">
      {meat != null ? <>{t('meatClear')} {showDate(addDays(date, meat))}</> : t('noLabelMeat')}
      {milk != null && <> · {t('milkClear')} {showDate(addDays(date, Math.ceil(milk / 24)))}</>}
      <br /><small>{t('labelNote')}</small>
    </p>
  );
}

/** One code of a scanned list: animal is set once the code is looked up. */
interface Scanned { key: number; code: string; animal?: Found }

/** ScanListState is a scanned list and what happened to the codes that did not join it. */
interface ScanListState {
  items: Scanned[]; notes: string[];
  add: (raw: string) => Promise<void>; remove: (key: number) => void;
  drop: (ids: Set<string>) => void;
  /** onLine takes a line from a reader connected by cable or Bluetooth (Devices). */
  onLine: (l: DeviceLine) => void;
}

/** useScanList keeps the list of animals a bulk treatment or move is for. Each code is looked
 * up as the weigh screen looks one up (the server's search, or the kept register offline); a
 * keyboard-wedge reader may send the next code before the last one's answer, so the list is
 * kept in a ref as well as in state, each code holds its place in the order it was read, and
 * an animal (by its id, whichever of its codes was read) is in the list once. */
function useScanList(farmID: string): ScanListState {
  const [items, setItems] = useState<Scanned[]>([]);
  const [notes, setNotes] = useState<string[]>([]);
  const now = useRef<Scanned[]>([]);
  const next = useRef(0);
  const put = (list: Scanned[]) => { now.current = list; setItems(list); };
  const note = (s: string) => setNotes((all) => [...all, s].slice(-8));
  const add = async (raw: string) => {
    const code = raw.trim();
    if (!code) return;
    if (now.current.some((x) => x.code === code || x.animal?.tag === code)) { note(`${code}: ${t('scanTwice')}`); return; }
    const key = ++next.current;
    put([...now.current, { key, code }]);
    let list: Found[] = [];
    try { list = await find(farmID, code); } catch { list = []; }
    // Removed by the farmer while it was looked up: nothing to do.
    if (!now.current.some((x) => x.key === key)) return;
    const rest = now.current.filter((x) => x.key !== key);
    const a = list.length === 1 ? list[0]! : list.find((x) => x.tag === code);
    if (!a) { put(rest); note(`${code}: ${t(list.length > 1 ? 'scanSeveral' : 'scanUnknown')}`); return; }
    if (rest.some((x) => x.animal?.id === a.id)) { put(rest); note(`${a.tag}: ${t('scanTwice')}`); return; }
    put(now.current.map((x) => (x.key === key ? { ...x, animal: a } : x)));
  };
  // A connected reader's codes join the list as a wedge reader's do. A panel reader sends the
  // code again and again while the animal stands in its field: the same code straight after
  // itself is ignored, not said each time as already in the list.
  const last = useRef('');
  const onLine = (l: DeviceLine) => {
    if (l.kind === 'eid') {
      if (l.eid === last.current) return;
      last.current = l.eid;
      void add(l.eid);
    } else if (l.kind === 'notAnimal') {
      note(`${t('notAnimalCode')}: ${l.line}`);
    }
  };
  const remove = (key: number) => { last.current = ''; put(now.current.filter((x) => x.key !== key)); };
  // After a save: the animals saved (or queued) leave the list; those the server refused
  // stay, to be fixed and saved again, with any code read meanwhile.
  const drop = (ids: Set<string>) => { last.current = ''; put(now.current.filter((x) => !x.animal || !ids.has(x.animal.id))); setNotes([]); };
  return { items, notes, add, remove, drop, onLine };
}

/** enterDown is true from an Enter's keydown in the scanned list's field to its keyup (or
 * the field losing the focus): a form submitted meanwhile is that Enter's implicit
 * submission, which never saves. One scan field is shown at a time. */
let enterDown = false;
const scanEnter = () => enterDown;

/** ScanField is the scanned list's field, its list and its outcome line. Enter in the field
 * (a wedge reader's, or the farmer's after typing a code) adds the code and never submits
 * the form; the field is read and emptied at once, so a fast reader's next code is whole.
 * The form's implicit submission comes with the Enter's keypress, which some keyboards (and
 * CDP's key events) send apart from its keydown, so both are stopped, and the form's submit
 * ignores a submission made while an Enter is down in this field (scanEnter). */
function ScanField({ id, s }: { id: string; s: ScanListState }) {
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => { field.current?.focus(); }, []);
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Enter') return;
    enterDown = true;
    e.preventDefault();
    const el = e.currentTarget as HTMLInputElement;
    const v = el.value;
    el.value = '';
    void s.add(v);
  };
  const ready = s.items.filter((x) => x.animal).length;
  return (
    <div class="scan">
      <label>{t('scanField')}<input id={`${id}-scan`} ref={field} type="text" autoComplete="off" aria-describedby={`${id}-scan-note`} onKeyDown={onKey}
        onKeyPress={(e) => { if (e.key === 'Enter') e.preventDefault(); }} onKeyUp={() => { enterDown = false; }} onBlur={() => { enterDown = false; }} /></label>
      <p class="note" id={`${id}-scan-note`}>{t('scanNote')}</p>
      <div role="status" id={`${id}-scan-status`}>
        <p class="scan-count">{count(ready, 'animal', 'animals')} {t('scanInList')}</p>
        {s.notes.length > 0 && <ul class="scan-notes">{s.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>}
      </div>
      {s.items.length > 0 && <ul class="scanned" id={`${id}-list`} aria-label={t('scanList')}>{s.items.map((x) => (
        <li key={x.key}><span translate={false}>{x.animal ? x.animal.tag : `${x.code} · ${t('scanLooking')}`}</span>
          <button type="button" class="link" aria-label={`${t('removeFromList')}: ${x.animal?.tag ?? x.code}`} onClick={() => s.remove(x.key)}>✕</button></li>
      ))}</ul>}
    </div>
  );
}

/** ScanToggle switches a form between its own animal fields and a scanned list. */
function ScanToggle({ id, on, set }: { id: string; on: boolean; set: (v: boolean) => void }) {
  return <button type="button" class="secondary scan-toggle" id={`${id}-scanmode`} aria-pressed={on} onClick={() => set(!on)}>{t('scanList')}</button>;
}

/** saveScanned saves a scanned list: one write per animal (each queued offline with its own
 * Idempotency-Key), so that a refusal for one animal (a history rule, say) stops none of the
 * others. The animals saved or queued leave the list; the answer is each animal's outcome,
 * or why the list cannot be saved yet. */
async function saveScanned(s: ScanListState, setBusy: (b: boolean) => void, each: (a: Found) => Promise<WriteOutcome<unknown>>, done: Key): Promise<string | string[]> {
  const all = scanReady(s);
  if (typeof all === 'string') return all;
  setBusy(true);
  const out: string[] = [];
  const saved = new Set<string>();
  try {
    for (const a of all) {
      const r = await each(a);
      if (!r.code) saved.add(a.id);
      out.push(`${a.tag}: ${said(r, done)}`);
    }
  } finally { setBusy(false); }
  s.drop(saved);
  return out;
}

/** scanReady answers the animals of a list ready to save, or why the list cannot be saved. */
function scanReady(s: ScanListState): Found[] | string {
  if (s.items.some((x) => !x.animal)) return t('scanWait');
  const all = s.items.flatMap((x) => (x.animal ? [x.animal] : []));
  return all.length === 0 ? t('scanEmpty') : all;
}

export function Treat({ farmID }: { farmID: string }) {
  const { groups, medicines } = useGroupsAndMedicines(farmID);
  const [tag, setTag] = useState('');
  const [group, setGroup] = useState('');
  const [medicine, setMedicine] = useState('');
  const [date, setDate] = useState(today());
  const [dose, setDose] = useState('');
  const [unit, setUnit] = useState('ml');
  const [msg, setMsg] = useState('');
  const [scanning, setScanning] = useState(false);
  const [lines, setLines] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const list = useScanList(farmID);
  // The farm's first medicine is chosen once the list comes.
  useEffect(() => { if (medicines[0]) setMedicine(medicines[0].id); }, [medicines]);
  const treatment = (animalID: string | null, groupID: string | null) => ({
    input: { farmID, fact: { treatment: { medicineID: medicine, animalID, groupID, date, dose: dose ? Number(dose) : null, unit: dose ? unit : null } } },
  });
  // A scanned list: one treatment fact per animal (saveScanned).
  const submitList = async () => {
    const out = await saveScanned(list, setBusy, (a) => write(`${t('treat')} ${a.tag}`, FactDocument, treatment(a.id, null)), 'treatmentSaved');
    if (typeof out === 'string') setMsg(out);
    else setLines(out);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (scanning && scanEnter()) return;
    setMsg('');
    setLines([]);
    if (scanning) { await submitList(); return; }
    let animalID: string | null = null;
    if (!group) {
      const list = await find(farmID, tag);
      if (list.length !== 1) { setMsg(t('notFound')); return; }
      animalID = list[0]!.id;
    }
    const out = await write(`${t('treat')} ${group ? groups.find((g) => g.id === group)?.name : tag}`, FactDocument, treatment(animalID, group || null));
    setMsg(out.queued ? t('queued') : out.code ? `${t('refused')}: ${out.message}` : t('treatmentSaved'));
  };
  return (
    <section aria-labelledby="treat-title">
      <h1 id="treat-title">{t('treat')}</h1>
      <form class="card" onSubmit={submit}>
        {scanning ? <ScanField id="treat" s={list} /> : <>
          <label>{t('group')}<select id="treat-group" value={group} onChange={(e) => setGroup(e.currentTarget.value)}>
            <option value="">—</option>{groups.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
          </select></label>
          {!group && <label>{t('animalOrGroup')}<input id="treat-tag" type="text" required value={tag} onInput={(e) => setTag(e.currentTarget.value)} /></label>}
        </>}
        <ScanToggle id="treat" on={scanning} set={(v) => { setScanning(v); setMsg(''); setLines([]); }} />
        <label>{t('medicine')}<select id="treat-medicine" required value={medicine} onChange={(e) => setMedicine(e.currentTarget.value)}>
          {medicines.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
        </select></label>
        <DateField id="treat-date" label={t('date')} required value={date} onValue={setDate} />
        <div class="pair">
          <label>{t('dose')}<input id="treat-dose" type="number" min="0" step="any" inputMode="decimal" value={dose} onInput={(e) => setDose(e.currentTarget.value)} /></label>
          <label>{t('unit')}<input id="treat-unit" type="text" value={unit} onInput={(e) => setUnit(e.currentTarget.value)} /></label>
        </div>
        <ClearDates date={date} medicine={medicines.find((m) => m.id === medicine)} />
        <button type="submit" id="treat-save" disabled={busy}>{t('save')}</button>
        <div role="status" id="treat-status">{msg && <p>{msg}</p>}{lines.length > 0 && <ul class="outcome">{lines.map((l, i) => <li key={i}>{l}</li>)}</ul>}</div>
      </form>
      {scanning && <Devices onLine={list.onLine} roles={['reader']} />}
    </section>
  );
}

/** Move puts animals into a group from a day on: one dated membership fact each (the herd
 * book keeps the history; other groups' memberships are left as they are), for tags typed in
 * one field or a scanned list. Queued offline. */
export function Move({ farmID }: { farmID: string }) {
  const { groups } = useGroupsAndMedicines(farmID);
  const [tags, setTags] = useState('');
  const [group, setGroup] = useState('');
  const [date, setDate] = useState(today());
  const [lines, setLines] = useState<string[]>([]);
  const [scanning, setScanning] = useState(false);
  const [busy, setBusy] = useState(false);
  const list = useScanList(farmID);
  // The farm's first group is chosen once the list comes, unless one was chosen meanwhile.
  useEffect(() => { if (groups[0]) setGroup((g) => g || groups[0]!.id); }, [groups]);
  const move = (a: Found, name: string) =>
    write(`${t('moveTo')} ${a.tag} → ${name}`, MoveDocument, { input: { farmID, fact: { membership: { animalID: a.id, groupID: group, startDate: date } } } });
  const submit = async (e: Event) => {
    e.preventDefault();
    if (scanning && scanEnter()) return;
    const name = groups.find((g) => g.id === group)?.name ?? '';
    const out: string[] = [];
    if (scanning) {
      // A scanned list: one membership fact per animal (saveScanned).
      const done = await saveScanned(list, setBusy, (a) => move(a, name), 'moved');
      setLines(typeof done === 'string' ? [done] : done);
      return;
    }
    for (const q of tags.split(/[\s,;]+/).filter(Boolean)) {
      const found = await find(farmID, q);
      const exact = found.length === 1 ? found[0] : found.find((x) => x.tag === q);
      if (!exact) { out.push(`${q}: ${t('notFound')}`); continue; }
      out.push(`${exact.tag}: ${said(await move(exact, name), 'moved')}`);
    }
    setLines(out);
    if (out.every((l) => !l.includes(t('notFound')))) setTags('');
  };
  return (
    <section aria-labelledby="move-title">
      <h1 id="move-title">{t('moveToGroup')}</h1>
      <form class="card" onSubmit={submit} id="move-form">
        {scanning ? <ScanField id="move" s={list} />
          : <label>{t('animalTags')}<input id="move-tags" type="text" autoComplete="off" required value={tags} onInput={(e) => setTags(e.currentTarget.value)} /></label>}
        <ScanToggle id="move" on={scanning} set={(v) => { setScanning(v); setLines([]); }} />
        <label>{t('group')}<select id="move-group" required value={group} onChange={(e) => setGroup(e.currentTarget.value)}>
          {groups.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
        </select></label>
        <DateField id="move-date" label={t('from')} required value={date} onValue={setDate} />
        <p class="note">{t('moveNote')}</p>
        <button type="submit" id="move-save" disabled={busy}>{t('moveTo')}</button>
      </form>
      <div role="status" id="move-status">{lines.length > 0 && <ul>{lines.map((l, i) => <li key={i}>{l}</li>)}</ul>}</div>
      {scanning && <Devices onLine={list.onLine} roles={['reader']} />}
    </section>
  );
}

interface CalfState { tag: string; sex: string; status: string; weight: string; ease: string; freemartin: boolean }
const newCalf = (): CalfState => ({ tag: '', sex: 'female', status: 'alive', weight: '', ease: '', freemartin: false });

/** CalfFields is one calf of the calving form; the first calf's fields keep the ids calf-*,
 * the second's are calf2-*. A freemartin is offered only for a heifer twin. */
function CalfFields({ n, calf, set, scale, twins }: {
  n: number; calf: CalfState; set: (c: CalfState) => void; scale: Array<{ code: string; label: string }>; twins: boolean;
}) {
  const id = (f: string) => `calf${n === 0 ? '' : n + 1}-${f}`;
  const put = (k: keyof CalfState) => (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    set({ ...calf, [k]: el.type === 'checkbox' ? el.checked : el.value });
  };
  return (
    <fieldset id={id('fields')}>
      <legend>{t(n === 0 ? 'calf' : 'calf2')}</legend>
      <label>{t('tag')}<input id={id('tag')} type="text" autoComplete="off" value={calf.tag} onInput={put('tag')} /></label>
      <label>{t('sex')}<select id={id('sex')} value={calf.sex} onChange={put('sex')}>
        <option value="female">{t('female')}</option><option value="male">{t('male')}</option></select></label>
      <label>{t('status')}<select id={id('status')} value={calf.status} onChange={put('status')}>
        <option value="alive">{t('alive')}</option><option value="stillborn">{t('stillborn')}</option></select></label>
      <label>{t('weightAtBirth')} ({prefs.unit})<input id={id('weight')} type="number" min="0.1" step="0.1" inputMode="decimal" value={calf.weight} onInput={put('weight')} /></label>
      <label>{t('calvingEase')}<select id={id('ease')} value={calf.ease} onChange={put('ease')}>
        <option value="">—</option>{scale.map((g) => <option key={g.code} value={g.code}>{g.code} · {g.label}</option>)}
      </select></label>
      {twins && calf.sex === 'female' && <label class="check"><input id={id('freemartin')} type="checkbox" checked={calf.freemartin} onChange={put('freemartin')} />{t('freemartin')}</label>}
    </fieldset>
  );
}

/** Calving records a dam's calving (calvingRecord): one calf or twins, each becoming an animal
 * with its birth facts and parents; an embryo-transfer calf names its genetic dam. The
 * calving-ease grades are the farm's own scale. */
export function Calving({ farmID }: { farmID: string }) {
  const [{ data }, again] = useQuery({ query: CalvingFormDocument, variables: { farmID } });
  const [dam, setDam] = useState('');
  const [date, setDate] = useState(today());
  const [sire, setSire] = useState('');
  const [sirePick, setSirePick] = useState('');
  const [basis, setBasis] = useState('service');
  const [lab, setLab] = useState('');
  const [calves, setCalves] = useState<CalfState[]>([newCalf()]);
  const [et, setET] = useState(false);
  const [donor, setDonor] = useState('');
  const [donorPick, setDonorPick] = useState('');
  const [msg, setMsg] = useState('');
  const scale = data?.farm?.settings.calvingEaseScale ?? [];
  const outside = data?.farm?.outsideAnimals.edges.map((e) => e.node) ?? [];
  const recent = data?.farm?.calvings.edges.map((e) => e.node) ?? [];
  const twins = calves.length > 1;
  const setCalf = (i: number) => (c: CalfState) => setCalves((all) => all.map((x, j) => (j === i ? c : x)));
  const submit = async (e: Event) => {
    e.preventDefault();
    setMsg('');
    const d = await findOne(farmID, dam);
    if (!d) { setMsg(`${t('dam')}: ${t('notFound')}`); return; }
    // A sire or donor is a herd animal by its tag, or an outside animal picked from the list.
    const s = sirePick ? { id: sirePick } : sire.trim() ? await findOne(farmID, sire) : null;
    if (!sirePick && sire.trim() && !s) { setMsg(`${t('sire')}: ${t('notFound')}`); return; }
    const g = !et ? null : donorPick ? { id: donorPick } : donor.trim() ? await findOne(farmID, donor) : null;
    if (et && !donorPick && donor.trim() && !g) { setMsg(`${t('geneticDam')}: ${t('notFound')}`); return; }
    const out = await write(`${t('calving')} ${d.tag}`, CalvingDocument, {
      input: {
        farmID, damID: d.id, date, sireID: s?.id ?? null, sireBasis: s ? basis : null, dnaLab: s && basis === 'dna' ? lab.trim() || null : null,
        calves: calves.map((c) => ({
          tag: c.tag.trim() || null, sex: c.sex, status: c.status, birthWeight: c.weight ? toKg(Number(c.weight)) : null,
          calvingEase: c.ease || null, twin: twins, freemartin: twins && c.sex === 'female' && c.freemartin, geneticDamID: g?.id ?? null,
        })),
      },
    });
    if (out.queued) setMsg(t('queued'));
    else if (out.code) setMsg(`${t('refused')}: ${out.message}`);
    else {
      setMsg(out.data?.calvingRecord.created ? t('calvingSaved') : t('calvingKnown'));
      setCalves((all) => all.map((c) => ({ ...c, tag: '', weight: '' })));
      again({ requestPolicy: 'network-only' });
    }
  };
  return (
    <section aria-labelledby="calving-title">
      <h1 id="calving-title">{t('calving')}</h1>
      <p class="note" id="calving-births-note">{t('calvingIsBirth')} <a href={`/farms/${farmID}/births`}>{t('births')}</a></p>
      <form class="card" onSubmit={submit} id="calving-form">
        <label>{t('damTag')}<input id="calving-dam" type="text" autoComplete="off" required value={dam} onInput={(e) => setDam(e.currentTarget.value)} /></label>
        <DateField id="calving-date" label={t('date')} required value={date} onValue={setDate} />
        <Parent id="calving-sire" label={t('sireTag')} outside={outside.filter((o) => o.sex === 'male')} pick={sirePick} setPick={setSirePick} tag={sire} setTag={setSire} optional />
        <label>{t('sireBasis')}<select id="calving-basis" value={basis} onChange={(e) => setBasis(e.currentTarget.value)}>
          {['service', 'natural_service', 'review', 'dna'].map((b) => <option key={b} value={b}>{t(`basis_${b}` as Key)}</option>)}
          </select></label>
        {basis === 'dna' && <label>{t('dnaLab')}<input id="calving-lab" type="text" required={!!(sirePick || sire.trim())} value={lab} onInput={(e) => setLab(e.currentTarget.value)} /></label>}
        <label class="check"><input id="calving-et" type="checkbox" checked={et} onChange={(e) => setET(e.currentTarget.checked)} />{t('etCalving')}</label>
        {et && <>
          <Parent id="calving-donor" label={t('geneticDam')} outside={outside.filter((o) => o.sex === 'female')} pick={donorPick} setPick={setDonorPick} tag={donor} setTag={setDonor} optional />
          <p class="note">{t('etNote')}</p>
        </>}
        {calves.map((c, i) => <CalfFields key={i} n={i} calf={c} set={setCalf(i)} scale={scale} twins={twins} />)}
        {scale.length === 0 && <p class="note">{t('noEaseScale')}</p>}
        <div class="actions">
          {twins
            ? <button type="button" class="secondary" id="calf-remove" onClick={() => setCalves((all) => all.slice(0, 1))}>{t('removeCalf')}</button>
            : <button type="button" class="secondary" id="calf-add" onClick={() => setCalves((all) => [...all, newCalf()])}>{t('addCalf')}</button>}
          <button type="submit" id="calving-save">{t('save')}</button>
        </div>
        {msg && <p role="status" id="calving-status">{msg}</p>}
      </form>
      <h2>{t('recentCalvings')}</h2>
      {recent.length === 0 ? <p>{t('none')}</p> : (
        <ul class="outbox" id="calving-list">{recent.map((c) => (
          <li key={c.id}>{showDate(c.date)}{c.calves.length > 1 && <> · {t('twins')}</>} · {c.calves.map((k) => <a key={k.animalID} href={`/farms/${farmID}/animals/${k.animalID}`}>{k.tag ?? '—'} ({t(k.sex === 'male' ? 'male' : 'female')}, {k.status === 'alive' ? t('alive') : t('stillborn')}{k.birthWeight != null && <>, {showWeight(k.birthWeight)}</>}{k.freemartin && <>, {t('freemartin')}</>}) </a>)}</li>
        ))}</ul>
      )}
    </section>
  );
}
