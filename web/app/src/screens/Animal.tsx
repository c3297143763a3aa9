// An animal: its profile on a day, identifiers, parents, offspring, timeline, a weight chart
// (inline SVG from the weight facts), its 205-day adjusted weaning weight, its withdrawal, and the sale and death forms.
import { useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AnimalClocksDocument, AnimalDocument, DeathDocument, GroupsDocument, SaleDocument, type NoticeRowFragment } from '../graphql/generated';
import { count, showDate, showGain, showWeight, t, timeLeft, today, type Key } from '../i18n';
import { write } from '../outbox';
import { Groups, Timeline, useEditor } from './Book';
import { Failed } from './Farms';
import { Pedigree } from './Pedigree';
import { kept, type Row } from '../sync';
import { refreshWithdrawal, useAnimalWithdrawal } from '../withdrawal';
import { DateField } from './DateField';

interface Point { date: string; kg: number }

/** OPEN are the states of a notice whose clock still runs for the keeper. */
export const OPEN = ['overdue', 'due', 'rejected'];

/** Clock is a statutory notice's state and, while it is open, its time left in words. */
export function Clock({ n }: { n: NoticeRowFragment }) {
  return (
    <>
      <span class="state">{t(`state_${n.state}` as Key)}</span>
      {' · '}{t('deadline')} {showDate(n.deadline)}
      {OPEN.includes(n.state) && <> · <strong class="left">{timeLeft(n.daysLeft)}</strong></>}
      {n.doneOn && <> · {t('doneOn')} {showDate(n.doneOn)}{n.late && <> ({t('doneLate')})</>}</>}
    </>
  );
}

/** Clocks are the animal's legal clocks: its statutory notices under the holding's rules,
 * open ones first. Kept like every read. */
function Clocks({ farmID, id }: { farmID: string; id: string }) {
  const [{ data }] = useQuery({ query: AnimalClocksDocument, variables: { farmID, animalID: id } });
  const ns = [...(data?.farm?.statutoryNotices ?? [])].sort((a, b) =>
    Number(!OPEN.includes(a.state)) - Number(!OPEN.includes(b.state)) || (a.deadline < b.deadline ? -1 : a.deadline > b.deadline ? 1 : 0));
  // An animal without a notice (or a farm on no holding) gets no card: nothing to watch.
  if (ns.length === 0) return null;
  return (
    <article class="card" aria-labelledby="clk"><h2 id="clk">{t('legalClocks')}</h2>
      <ul class="plain" id="animal-clocks">{ns.map((n) => (
        <li key={n.key} data-kind={n.kind} data-state={n.state} class={n.state === 'overdue' || n.state === 'rejected' ? 'late' : undefined}>
          <strong>{t(`notice_${n.kind}` as Key)}</strong> · <Clock n={n} />
          {n.state === 'rejected' && n.submission?.cause && <> · {t('rejectedWhy')} <q>{n.submission.cause}</q></>}
        </li>
      ))}</ul>
      <p class="note"><a href={`/farms/${farmID}/registry`}>{t('registryScreen')}</a></p>
    </article>
  );
}

/** useWithdrawal is the animal's withdrawal on a day (withdrawal.ts; shared by the card, the
 * departure form and the kept page through the cache). */
function useWithdrawal(farmID: string, asOf: string, id: string) {
  return useAnimalWithdrawal(farmID, id, asOf).line ?? undefined;
}

function Withdrawal({ farmID, asOf, id }: { farmID: string; asOf: string; id: string }) {
  const w = useWithdrawal(farmID, asOf, id);
  return (
    <article class="card" aria-labelledby="wd"><h2 id="wd">{t('withdrawal')}</h2>
      {w ? <p id="animal-withdrawal">{t('meatClear')} {showDate(w.meatClearOn)}{w.milkClearAt && <> · {t('milkClear')} {showDate(w.milkClearAt)}</>}</p> : <p>{t('noWithdrawal')}</p>}
    </article>
  );
}

/** AnimalGroups is the groups card with the farm's group names. */
function AnimalGroups(props: { farmID: string; animalID: string; asOf: string; groupIDs: string[]; editor: boolean; changed: () => void }) {
  const [{ data: gd }] = useQuery({ query: GroupsDocument, variables: { farmID: props.farmID } });
  const names = Object.fromEntries((gd?.farm?.groups.edges ?? []).flatMap((e) => (e?.node ? [[e.node.id, e.node.name]] : [])));
  return <Groups {...props} names={names} />;
}

/** useLater is false for the first render and true from the next task on: the cards below
 * the first screen are drawn then, so that the page's first draw after its data comes is
 * one short task rather than one long one (a phone's main thread stays free to answer). */
export function useLater(): boolean {
  const [later, setLater] = useState(false);
  useEffect(() => { const id = setTimeout(() => setLater(true), 0); return () => clearTimeout(id); }, []);
  return later;
}

/** Later draws its children from the task after its own first draw (useLater). */
export function Later({ children }: { children: ComponentChildren }) {
  return useLater() ? <>{children}</> : null;
}

export function WeightChart({ points }: { points: Point[] }) {
  if (points.length < 1) return <p>{t('none')}</p>;
  const W = 320, H = 140, P = 28;
  const ts = points.map((p) => Date.parse(p.date));
  const t0 = Math.min(...ts), t1 = Math.max(...ts) || t0 + 1;
  const lo = Math.min(...points.map((p) => p.kg)), hi = Math.max(...points.map((p) => p.kg));
  const x = (v: number) => P + ((v - t0) / Math.max(1, t1 - t0)) * (W - 2 * P);
  const y = (v: number) => H - P - ((v - lo) / Math.max(1, hi - lo)) * (H - 2 * P);
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${x(ts[i]!).toFixed(1)},${y(p.kg).toFixed(1)}`).join(' ');
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${t('weights')}: ${points.map((p) => `${showDate(p.date)} ${showWeight(p.kg)}`).join(', ')}`}>
      <line x1={P} y1={H - P} x2={W - P} y2={H - P} class="axis" />
      <path d={d} class="line" fill="none" />
      {points.map((p, i) => <circle key={i} cx={x(ts[i]!)} cy={y(p.kg)} r="4" class="dot" />)}
      <text x={P} y={H - 8} class="lbl">{showDate(points[0]!.date)}</text>
      <text x={W - P} y={H - 8} class="lbl" text-anchor="end">{showDate(points[points.length - 1]!.date)}</text>
      <text x={4} y={y(hi) + 4} class="lbl">{showWeight(hi)}</text>
    </svg>
  );
}

function Departure({ farmID, id, asOf }: { farmID: string; id: string; asOf: string }) {
  const clearOn = useWithdrawal(farmID, asOf, id)?.meatClearOn;
  const [kind, setKind] = useState<'sale' | 'death'>('sale');
  const [date, setDate] = useState(today());
  const [buyer, setBuyer] = useState('');
  const [cause, setCause] = useState('');
  const [slaughter, setSlaughter] = useState(false);
  const [warning, setWarning] = useState('');
  const [ack, setAck] = useState(false);
  const [msg, setMsg] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setMsg('');
    const common = { farmID, animalID: id, date, acknowledgeWithdrawal: warning ? ack : null };
    const out = kind === 'sale'
      ? await write(`${t('sale')} ${date}`, SaleDocument, { input: { ...common, buyer: buyer || null } })
      : await write(`${t('death')} ${date}`, DeathDocument, { input: { ...common, cause: cause || null, slaughter } });
    if (out.queued) { setMsg(t('queued')); return; }
    if (out.code === 'WITHDRAWAL' || out.code === 'CONFLICT') { setWarning(out.message ?? ''); setAck(false); return; }
    if (out.code) { setMsg(`${t('error')}: ${out.message}`); return; }
    setWarning(''); setMsg(t('saved'));
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="dep-title">
      <h2 id="dep-title">{t('sale')} / {t('death')}</h2>
      <fieldset class="choice"><legend class="sr">{t('sale')} / {t('death')}</legend>
        <label><input type="radio" name="kind" checked={kind === 'sale'} onChange={() => setKind('sale')} /> {t('sale')}</label>
        <label><input type="radio" name="kind" checked={kind === 'death'} onChange={() => setKind('death')} /> {t('death')}</label>
      </fieldset>
      <DateField id="dep-date" label={t('date')} required value={date} onValue={setDate} />
      {kind === 'sale'
        ? <label>{t('buyer')}<input id="buyer" type="text" value={buyer} onInput={(e) => setBuyer(e.currentTarget.value)} /></label>
        : <><label>{t('cause')}<input id="cause" type="text" value={cause} onInput={(e) => setCause(e.currentTarget.value)} /></label>
          <label class="check"><input type="checkbox" checked={slaughter} onChange={(e) => setSlaughter(e.currentTarget.checked)} /> {t('slaughter')}</label></>}
      {warning && <div class="warning" role="alert" id="withdrawal-warning">
        <strong>{t('withdrawalWarning')}</strong><p>{t('withdrawalPlain')}{clearOn && <> ({t('meatClear')} {showDate(clearOn)})</>}</p>
        <details><summary>{t('details')}</summary><p>{warning}</p></details>
        <label class="check"><input id="acknowledge" type="checkbox" checked={ack} onChange={(e) => setAck(e.currentTarget.checked)} /> {t('acknowledge')}</label>
      </div>}
      <button type="submit" id="record-departure" disabled={!!warning && !ack}>{t('save')}</button>
      {msg && <p role="status" id="departure-status">{msg}</p>}
    </form>
  );
}

// AdjustedWeaning is the calf's 205-day adjusted weaning weight and its parts, as the server
// computes it; without one it says what is missing. An animal that lacks every part (no
// birth date, no birth weight, no weaning: a bought-in cow, say) gets no card at all.
function AdjustedWeaning({ w }: { w: { adjustedWeaningWeight?: { birthDate: string; birthKG: number; weaningDate: string; weaningKG: number; ageDays: number; ageOfDamAdjustmentKG: number; adjustedKG: number } | null; adjustedWeaningMissing: string[] } }) {
  const adj = w.adjustedWeaningWeight;
  if (!adj && w.adjustedWeaningMissing.length >= 3) return null;
  return (
    <article class="card" aria-labelledby="aw"><h2 id="aw">{t('adjustedWeaning')}</h2>
      {adj
        ? <p id="animal-adjusted">{t('adjusted205')} <strong>{showWeight(adj.adjustedKG)}</strong>
          <br /><small class="muted">{t('born')} {showDate(adj.birthDate)}, {showWeight(adj.birthKG)} · {t('weanedAt')} {count(adj.ageDays, 'dayOld', 'daysOld')} ({showDate(adj.weaningDate)}), {showWeight(adj.weaningKG)}
            {adj.ageOfDamAdjustmentKG !== 0 && <> · {t('ageOfDamAdded')} {showWeight(adj.ageOfDamAdjustmentKG)}</>}</small></p>
        : <p id="animal-adjusted">{t('noAdjusted')} {w.adjustedWeaningMissing.map((m) => t(`missing_${m}` as Key) ?? m).join(', ')}</p>}
    </article>
  );
}

export function Animal({ farmID, id }: { farmID: string; id: string }) {
  const [asOf, setAsOf] = useState(today());
  const [{ data, error }, again] = useQuery({ query: AnimalDocument, variables: { id, asOf } });
  const editor = useEditor(farmID);
  // After a correction the profile, timeline and withdrawal are read again from the server
  // (the withdrawal's answer reaches its card and the departure form through the cache).
  const changed = () => {
    again({ requestPolicy: 'network-only' });
    refreshWithdrawal(id, asOf);
  };
  const a = data?.node;
  // Offline, a page never read on this device shows the kept register's copy of the animal.
  if ((!a || !('tag' in a)) && (!navigator.onLine || error?.networkError)) {
    return <KeptAnimal farmID={farmID} id={id} asOf={asOf} />;
  }
  if (error) return <Failed message={error.message} />;
  if (!a || !('tag' in a)) return <p aria-busy="true">{t('loading')}</p>;
  const p = a.profile;
  const records = a.timeline.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  // The weights by day: ISO days sort as plain strings (localeCompare would load a collator
  // first, about 10 ms on a phone, for nothing).
  const weights: Point[] = records.flatMap((r) => (r.items ?? []).flatMap((it) => {
    const f = (it.metadata as { birth_history?: { kind?: string; animal_id?: string; date?: string; kg?: number | string } } | null)?.birth_history;
    return f?.kind === 'weight' && f.animal_id === id && f.date ? [{ date: f.date, kg: Number(f.kg) }] : [];
  })).sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : 0));
  const kids = a.offspring.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  return (
    <section aria-labelledby="animal-title">
      <h1 id="animal-title">{a.tag}{a.name ? ` · ${a.name}` : ''}</h1>
      <DateField id="animal-as-of" label={t('asOf')} inline value={asOf} onValue={(v) => setAsOf(v || today())} />
      <div class="grid">
        <article class="card" aria-labelledby="pf"><h2 id="pf">{t('profile')}</h2>
          <dl class="facts">
            <dt>{t('status')}</dt><dd id="animal-status">{p.status ? t(p.status) : '—'} {p.statusDate && `(${showDate(p.statusDate)})`}</dd>
            <dt>{t('sex')}</dt><dd>{p.sex === 'MALE' ? t('male') : p.sex === 'FEMALE' ? t('female') : '—'}</dd>
            <dt>{t('born')}</dt><dd>{showDate(p.birthDate)}</dd>
            <dt>{t('breed')}</dt><dd>{p.breed ?? '—'}</dd>
            <dt>{t('weight')}</dt><dd id="animal-weight">{showWeight(p.weightKg)} {p.weighedOn && `(${showDate(p.weighedOn)})`}</dd>
            <dt>{t('adg')}</dt><dd id="animal-adg">{showGain(p.adgKg)}</dd>
            <dt>{t('dam')}</dt><dd>{p.dam ? <a href={`/farms/${farmID}/animals/${p.dam.id}`}>{p.dam.tag}</a> : '—'}</dd>
            <dt>{t('sire')}</dt><dd>{p.sire ? <a href={`/farms/${farmID}/animals/${p.sire.id}`}>{p.sire.tag}</a> : '—'}</dd>
          </dl>
        </article>
        <article class="card" aria-labelledby="ids"><h2 id="ids">{t('identifiers')}</h2>
          {p.identifiers.length ? <ul>{p.identifiers.map((i) => <li key={i.scheme + i.value}><span class="muted">{i.scheme}</span> <code>{i.value}</code></li>)}</ul> : <p>{t('none')}</p>}
          <h2>{t('offspring')} ({a.offspring.totalCount})</h2>
          {kids.length ? <ul>{kids.map((k) => <li key={k.id}><a href={`/farms/${farmID}/animals/${k.id}`}>{k.tag}</a></li>)}</ul> : <p>{t('none')}</p>}
        </article>
        <article class="card" aria-labelledby="wt"><h2 id="wt">{t('weights')}</h2><WeightChart points={weights} /></article>
        <Withdrawal farmID={farmID} asOf={asOf} id={id} />
        <Later>
          <Pedigree farmID={farmID} id={id} />
          <Clocks farmID={farmID} id={id} />
          <AdjustedWeaning w={a.weights} />
          <AnimalGroups farmID={farmID} animalID={id} asOf={asOf} groupIDs={p.groupIDs} editor={editor} changed={changed} />
          <Timeline farmID={farmID} records={records} total={a.timeline.totalCount} editor={editor} changed={changed} />
          {p.status === 'ON_FARM' && <Departure farmID={farmID} id={id} asOf={asOf} />}
        </Later>
      </div>
    </section>
  );
}

/** KeptAnimal is an animal as the kept register has it (its profile on the day of the last
 * sync), for a page opened offline that was never read on this device: what it lacks (the
 * timeline, the pedigree) comes when the network is back; the sale and death form works
 * (queued). */
function KeptAnimal({ farmID, id, asOf }: { farmID: string; id: string; asOf: string }) {
  const [row, setRow] = useState<Row | null | undefined>(undefined);
  useEffect(() => { void kept(farmID).then((k) => setRow(k?.rows.find((r) => r.id === id) ?? null), () => setRow(null)); }, [farmID, id]);
  if (row === undefined) return <p aria-busy="true">{t('loading')}</p>;
  if (row === null) return <Failed message={t('notKept')} />;
  const p = row.profile;
  return (
    <section aria-labelledby="animal-title">
      <h1 id="animal-title">{row.tag}{row.name ? ` · ${row.name}` : ''}</h1>
      <p class="banner" id="animal-kept">{t('keptAnimal')}</p>
      <div class="grid">
        <article class="card" aria-labelledby="pf"><h2 id="pf">{t('profile')}</h2>
          <dl class="facts">
            <dt>{t('status')}</dt><dd id="animal-status">{p.status ? t(p.status) : '—'}</dd>
            <dt>{t('sex')}</dt><dd>{p.sex === 'MALE' ? t('male') : p.sex === 'FEMALE' ? t('female') : '—'}</dd>
            <dt>{t('born')}</dt><dd>{showDate(p.birthDate)}</dd>
            <dt>{t('breed')}</dt><dd>{p.breed ?? '—'}</dd>
            <dt>{t('weight')}</dt><dd id="animal-weight">{showWeight(p.weightKg)}</dd>
          </dl>
        </article>
        <article class="card" aria-labelledby="ids"><h2 id="ids">{t('identifiers')}</h2>
          {p.identifiers.length ? <ul>{p.identifiers.map((i) => <li key={i.scheme + i.value}><span class="muted">{i.scheme}</span> <code>{i.value}</code></li>)}</ul> : <p>{t('none')}</p>}
        </article>
        {p.status === 'ON_FARM' && <Departure farmID={farmID} id={id} asOf={asOf} />}
      </div>
    </section>
  );
}
