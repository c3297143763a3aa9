// The breeding screen (docs/birth-history.md): record a service (insemination, hand mating or
// embryo transfer; the sire or donor a herd animal or an outside one), a pregnancy check and a
// heat; add, edit and delete outside sires and donors; ask which bulls to put to a female
// (mating advice: the calf's expected inbreeding); read the due list, page by page. Every
// write goes through the outbox like the other forms. Loaded on demand (main.tsx), so it
// costs the first load nothing.
import { useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { client } from '../client';
import {
  BreedingDocument, BreedingFactDocument, DueMoreDocument, MatingAdviceDocument, OutsideAnimalAddDocument,
  OutsideAnimalDropDocument, OutsideAnimalEditDocument, type DuePageFragment, type FactInput,
  type MatingAdviceQuery, type OutsideFragment, type PregnancyCheckMethod, type PregnancyCheckResult,
} from '../graphql/generated';
import { showDate, t, today, type Key } from '../i18n';
import { write, type WriteOutcome } from '../outbox';
import { Failed } from './Farms';
import { findOne, Parent, type Found } from './Forms';
import { pct, useNames } from './Pedigree';
import { DateField } from './DateField';

type Outside = OutsideFragment;
type DueNode = DuePageFragment['edges'][number]['node'];
type Kind = 'insemination' | 'hand_mating' | 'embryo_transfer';
const KINDS: Kind[] = ['insemination', 'hand_mating', 'embryo_transfer'];
const METHODS: PregnancyCheckMethod[] = ['SCAN', 'PALPATION', 'BLOOD'];
const RESULTS: PregnancyCheckResult[] = ['PREGNANT', 'EMPTY', 'RECHECK'];

function outcome(out: WriteOutcome<unknown>, ok: Key): string {
  return out.queued ? t('queued') : out.code || out.message ? `${t('refused')}: ${out.message}` : t(ok);
}

function ServiceForm({ farmID, outside, saved }: { farmID: string; outside: Outside[]; saved: () => void }) {
  const [kind, setKind] = useState<Kind>('insemination');
  const [female, setFemale] = useState('');
  const [date, setDate] = useState(today());
  const [sire, setSire] = useState('');
  const [sireTag, setSireTag] = useState('');
  const [donor, setDonor] = useState('');
  const [donorTag, setDonorTag] = useState('');
  const [straw, setStraw] = useState('');
  const [technician, setTechnician] = useState('');
  const [embryo, setEmbryo] = useState('');
  const [msg, setMsg] = useState('');
  const males = outside.filter((o) => o.sex === 'male');
  const females = outside.filter((o) => o.sex === 'female');
  const pickSire = (v: string) => {
    setSire(v);
    // The straw is usually the batch the farm holds of that bull.
    const b = outside.find((o) => o.id === v)?.batch;
    if (b && !straw) setStraw(b);
  };
  const parent = async (pick: string, tag: string, what: Key): Promise<string | null> => {
    if (pick) return pick;
    const a = await findOne(farmID, tag);
    if (!a) setMsg(`${t(what)}: ${t('notFound')}`);
    return a?.id ?? null;
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setMsg('');
    const f = await findOne(farmID, female);
    if (!f) { setMsg(`${t(kind === 'embryo_transfer' ? 'recipientTag' : 'femaleTag')}: ${t('notFound')}`); return; }
    const sireID = await parent(sire, sireTag, 'sire');
    if (!sireID) return;
    let fact: FactInput;
    if (kind === 'insemination') {
      fact = { insemination: { damID: f.id, sireID, date, straw: straw.trim() || null, technician: technician.trim() || null } };
    } else if (kind === 'hand_mating') {
      fact = { handMating: { damID: f.id, sireID, date } };
    } else {
      const donorID = await parent(donor, donorTag, 'donor');
      if (!donorID) return;
      fact = { embryoTransfer: { donorID, sireID, recipientID: f.id, date, embryo: embryo.trim() || null } };
    }
    const out = await write(`${t(`kind_${kind}` as Key)} ${f.tag}`, BreedingFactDocument, { input: { farmID, fact } });
    setMsg(outcome(out, 'serviceSaved'));
    if (!out.code && !out.message) { setFemale(''); saved(); }
  };
  return (
    <form class="card" onSubmit={submit} id="service-form" aria-labelledby="service-title">
      <h2 id="service-title">{t('recordService')}</h2>
      <label>{t('serviceKind')}<select id="service-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
        {KINDS.map((k) => <option key={k} value={k}>{t(`kind_${k}` as Key)}</option>)}
      </select></label>
      <label>{t(kind === 'embryo_transfer' ? 'recipientTag' : 'femaleTag')}<input id="service-female" type="text" autoComplete="off" required value={female} onInput={(e) => setFemale(e.currentTarget.value)} /></label>
      <DateField id="service-date" label={t('date')} required value={date} onValue={setDate} />
      <Parent id="service-sire" label={t('sire')} outside={males} pick={sire} setPick={pickSire} tag={sireTag} setTag={setSireTag} />
      {kind === 'insemination' && <div class="pair">
        <label>{t('straw')}<input id="service-straw" type="text" autoComplete="off" value={straw} onInput={(e) => setStraw(e.currentTarget.value)} /></label>
        <label>{t('technician')}<input id="service-technician" type="text" value={technician} onInput={(e) => setTechnician(e.currentTarget.value)} /></label>
      </div>}
      {kind === 'embryo_transfer' && <>
        <Parent id="service-donor" label={t('donor')} outside={females} pick={donor} setPick={setDonor} tag={donorTag} setTag={setDonorTag} />
        <label>{t('embryo')}<input id="service-embryo" type="text" autoComplete="off" value={embryo} onInput={(e) => setEmbryo(e.currentTarget.value)} /></label>
      </>}
      <button type="submit" id="service-save">{t('save')}</button>
      {msg && <p role="status" id="service-status">{msg}</p>}
    </form>
  );
}

function ScanForm({ farmID, saved }: { farmID: string; saved: () => void }) {
  const [female, setFemale] = useState('');
  const [date, setDate] = useState(today());
  const [method, setMethod] = useState<PregnancyCheckMethod>('SCAN');
  const [result, setResult] = useState<PregnancyCheckResult>('PREGNANT');
  const [age, setAge] = useState('');
  const [msg, setMsg] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setMsg('');
    const f = await findOne(farmID, female);
    if (!f) { setMsg(`${t('femaleTag')}: ${t('notFound')}`); return; }
    // A foetal age goes only with a pregnant result.
    const foetalAgeDays = result === 'PREGNANT' && age.trim() ? Number(age) : null;
    const out = await write(`${t('recordScan')} ${f.tag}`, BreedingFactDocument, {
      input: { farmID, fact: { pregnancyCheck: { animalID: f.id, date, method, result, foetalAgeDays } } },
    });
    setMsg(outcome(out, 'scanSaved'));
    if (!out.code && !out.message) { setFemale(''); setAge(''); saved(); }
  };
  return (
    <form class="card" onSubmit={submit} id="scan-form" aria-labelledby="scan-title">
      <h2 id="scan-title">{t('recordScan')}</h2>
      <label>{t('femaleTag')}<input id="scan-female" type="text" autoComplete="off" required value={female} onInput={(e) => setFemale(e.currentTarget.value)} /></label>
      <DateField id="scan-date" label={t('date')} required value={date} onValue={setDate} />
      <div class="pair even">
        <label>{t('method')}<select id="scan-method" value={method} onChange={(e) => setMethod(e.currentTarget.value as PregnancyCheckMethod)}>
          {METHODS.map((m) => <option key={m} value={m}>{t(`method_${m}` as Key)}</option>)}
        </select></label>
        <label>{t('result')}<select id="scan-result" value={result} onChange={(e) => setResult(e.currentTarget.value as PregnancyCheckResult)}>
          {RESULTS.map((r) => <option key={r} value={r}>{t(`result_${r}` as Key)}</option>)}
        </select></label>
      </div>
      {result === 'PREGNANT' && <label>{t('foetalAge')}<input id="scan-age" type="number" min="1" max="300" step="1" inputMode="numeric" value={age} onInput={(e) => setAge(e.currentTarget.value)} /></label>}
      <button type="submit" id="scan-save">{t('save')}</button>
      {msg && <p role="status" id="scan-status">{msg}</p>}
    </form>
  );
}

function OutsideForm({ farmID, saved }: { farmID: string; saved: () => void }) {
  const [name, setName] = useState('');
  const [sex, setSex] = useState('male');
  const [breed, setBreed] = useState('');
  const [batch, setBatch] = useState('');
  const [msg, setMsg] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const out = await write(`${t('addOutside')}: ${name}`, OutsideAnimalAddDocument, {
      input: { farmID, name: name.trim(), sex, breed: breed.trim() || null, batch: batch.trim() || null },
    });
    setMsg(outcome(out, 'outsideSaved'));
    if (!out.code && !out.message) { setName(''); setBreed(''); setBatch(''); saved(); }
  };
  return (
    <details class="card" id="outside">
      <summary>{t('addOutside')}</summary>
      <form onSubmit={submit} id="outside-form">
        <p class="note">{t('outsideNote')}</p>
        <label>{t('name')}<input id="outside-name" type="text" autoComplete="off" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>{t('sex')}<select id="outside-sex" value={sex} onChange={(e) => setSex(e.currentTarget.value)}>
          <option value="male">{t('male')}</option><option value="female">{t('female')}</option>
        </select></label>
        <div class="pair even">
          <label>{t('breed')}<input id="outside-breed" type="text" value={breed} onInput={(e) => setBreed(e.currentTarget.value)} /></label>
          <label>{t('straw')}<input id="outside-batch" type="text" autoComplete="off" value={batch} onInput={(e) => setBatch(e.currentTarget.value)} /></label>
        </div>
        <button type="submit" id="outside-save">{t('save')}</button>
        {msg && <p role="status" id="outside-status">{msg}</p>}
      </form>
    </details>
  );
}

function HeatForm({ farmID }: { farmID: string }) {
  const [female, setFemale] = useState('');
  const [date, setDate] = useState(today());
  const [msg, setMsg] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setMsg('');
    const f = await findOne(farmID, female);
    if (!f) { setMsg(`${t('femaleTag')}: ${t('notFound')}`); return; }
    const out = await write(`${t('recordHeat')} ${f.tag}`, BreedingFactDocument, { input: { farmID, fact: { heat: { animalID: f.id, date } } } });
    setMsg(outcome(out, 'heatSaved'));
    if (!out.code && !out.message) setFemale('');
  };
  return (
    <form class="card" onSubmit={submit} id="heat-form" aria-labelledby="heat-title">
      <h2 id="heat-title">{t('recordHeat')}</h2>
      <label>{t('femaleTag')}<input id="heat-female" type="text" autoComplete="off" required value={female} onInput={(e) => setFemale(e.currentTarget.value)} /></label>
      <DateField id="heat-date" label={t('date')} required value={date} onValue={setDate} />
      <button type="submit" id="heat-save">{t('save')}</button>
      {msg && <p role="status" id="heat-status">{msg}</p>}
    </form>
  );
}

/** OutsideEdit edits one outside animal: its fields are replaced whole, so every one is sent. */
function OutsideEdit({ farmID, o, said }: { farmID: string; o: Outside; said: (msg: string, ok: boolean) => void }) {
  const [name, setName] = useState(o.name);
  const [sex, setSex] = useState(o.sex);
  const [breed, setBreed] = useState(o.breed ?? '');
  const [batch, setBatch] = useState(o.batch ?? '');
  const [registry, setRegistry] = useState(o.registry ?? '');
  const [number, setNumber] = useState(o.registrationNumber ?? '');
  const id = (f: string) => `oa-${f}-${o.id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    const out = await write(`${t('editOutside')}: ${name}`, OutsideAnimalEditDocument, {
      input: {
        farmID, id: o.id, name: name.trim(), sex, breed: breed.trim() || null, batch: batch.trim() || null,
        registry: registry.trim() || null, registrationNumber: number.trim() || null, birthDate: o.birthDate ?? null,
      },
    });
    said(outcome(out, 'outsideEdited'), !out.code && !out.message);
  };
  return (
    <details class="oa-edit">
      <summary>{t('edit')} <span class="sr">{o.name}</span></summary>
      <form onSubmit={submit} id={id('form')} aria-label={`${t('editOutside')}: ${o.name}`}>
        <label>{t('name')}<input id={id('name')} type="text" autoComplete="off" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>{t('sex')}<select id={id('sex')} value={sex} onChange={(e) => setSex(e.currentTarget.value)}>
          <option value="male">{t('male')}</option><option value="female">{t('female')}</option>
        </select></label>
        <div class="pair even">
          <label>{t('breed')}<input id={id('breed')} type="text" value={breed} onInput={(e) => setBreed(e.currentTarget.value)} /></label>
          <label>{t('straw')}<input id={id('batch')} type="text" autoComplete="off" value={batch} onInput={(e) => setBatch(e.currentTarget.value)} /></label>
        </div>
        <div class="pair even">
          <label>{t('registry')}<input id={id('registry')} type="text" value={registry} onInput={(e) => setRegistry(e.currentTarget.value)} /></label>
          <label>{t('registrationNumber')}<input id={id('number')} type="text" autoComplete="off" value={number} onInput={(e) => setNumber(e.currentTarget.value)} /></label>
        </div>
        <button type="submit" id={id('save')}>{t('save')}</button>
      </form>
    </details>
  );
}

/** OutsideList lists the outside sires and donors, each to edit or delete. A delete asks once
 * more; the server refuses one that a fact names, and its words are shown. */
function OutsideList({ farmID, outside, saved }: { farmID: string; outside: Outside[]; saved: () => void }) {
  const [msg, setMsg] = useState('');
  const [doomed, setDoomed] = useState('');
  const said = (m: string, ok: boolean) => { setMsg(m); if (ok) saved(); };
  const drop = async (o: Outside) => {
    setDoomed('');
    const out = await write(`${t('deleteOutside')}: ${o.name}`, OutsideAnimalDropDocument, { input: { farmID, id: o.id } });
    said(outcome(out, 'outsideDeleted'), !out.code && !out.message);
  };
  if (outside.length === 0) return null;
  return (
    <article class="card" aria-labelledby="outside-list-title">
      <h2 id="outside-list-title">{t('outsideAnimals')}</h2>
      <ul class="outbox" id="outside-list">{outside.map((o) => (
        <li key={o.id} id={`oa-${o.id}`}>
          <strong>{o.name}</strong> <small class="muted">· {t(o.sex === 'female' ? 'female' : 'male')}{o.breed ? ` · ${o.breed}` : ''}{o.batch ? ` · ${o.batch}` : ''}</small>
          <OutsideEdit key={`${o.id}:${o.name}:${o.sex}:${o.breed}:${o.batch}`} farmID={farmID} o={o} said={said} />
          {doomed === o.id ? <p>{t('deleteSure')} <strong>{o.name}</strong>{' '}
            <button type="button" id={`oa-confirm-${o.id}`} onClick={() => void drop(o)}>{t('deleteOutside')}</button>{' '}
            <button type="button" class="secondary" onClick={() => setDoomed('')}>{t('cancel')}</button></p>
            : <button type="button" class="secondary" id={`oa-delete-${o.id}`} aria-label={`${t('deleteOutside')}: ${o.name}`} onClick={() => setDoomed(o.id)}>{t('delete')}</button>}
        </li>
      ))}</ul>
      <div role="status" id="outside-list-status">{msg}</div>
    </article>
  );
}

type Advice = NonNullable<MatingAdviceQuery['farm']>['matingAdvice'];

/** Mating asks the server which of the farm's bulls may serve a female today, with the
 * expected inbreeding F of their calf (the coancestry of the two), lowest first. */
function Mating({ farmID }: { farmID: string }) {
  const [female, setFemale] = useState('');
  const [dam, setDam] = useState<Found | null>(null);
  const [rows, setRows] = useState<Advice | null>(null);
  const [msg, setMsg] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setMsg(''); setRows(null);
    const f = await findOne(farmID, female);
    if (!f) { setMsg(`${t('femaleTag')}: ${t('notFound')}`); return; }
    setDam(f);
    const r = await client.query(MatingAdviceDocument, { farmID, damID: f.id }, { requestPolicy: 'network-only' }).toPromise();
    if (r.error || !r.data?.farm) { setMsg(r.error?.graphQLErrors[0]?.message ?? r.error?.message ?? t('error')); return; }
    setRows(r.data.farm.matingAdvice);
  };
  return (
    <article class="card" id="mating" aria-labelledby="mating-title">
      <h2 id="mating-title">{t('matingAdvice')}</h2>
      <p class="note">{t('matingNote')}</p>
      <form onSubmit={submit} id="mating-form" aria-labelledby="mating-title">
        <label>{t('femaleTag')}<input id="mating-female" type="text" autoComplete="off" required value={female} onInput={(e) => setFemale(e.currentTarget.value)} /></label>
        <button type="submit" id="mating-ask">{t('advise')}</button>
      </form>
      {msg && <p role="status" id="mating-status">{msg}</p>}
      {rows && dam && (rows.length === 0 ? <p id="mating-table">{t('noBulls')}</p> : (
        <table class="table" id="mating-table">
          <caption>{t('matingFor')} {dam.tag}</caption>
          <thead><tr><th scope="col">{t('sire')}</th><th scope="col">{t('calfInbreeding')}</th></tr></thead>
          <tbody>{rows.map((a) => (
            <tr key={a.sire.id}>
              <th scope="row"><a href={`/farms/${farmID}/animals/${a.sire.id}`}>{a.sire.tag}{a.sire.name ? ` · ${a.sire.name}` : ''}</a></th>
              <td>{pct(a.expectedInbreeding)}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
    </article>
  );
}

export function Breeding({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: BreedingDocument, variables: { farmID } });
  const outside = data?.farm?.outsideAnimals.edges.map((e) => e.node) ?? [];
  // The due list's later pages, read by the connection's cursor (an offset): dropped when the
  // first page is read again, since a write may move every female's place.
  const first = data?.farm?.due;
  const [more, setMore] = useState<{ rows: DueNode[]; next: string | null; busy: boolean }>({ rows: [], next: null, busy: false });
  useEffect(() => {
    setMore({ rows: [], next: first?.pageInfo.hasNextPage ? first.pageInfo.endCursor ?? null : null, busy: false });
  }, [first]);
  const showMore = async () => {
    if (!more.next) return;
    setMore((m) => ({ ...m, busy: true }));
    const r = await client.query(DueMoreDocument, { farmID, after: more.next }, { requestPolicy: 'network-only' }).toPromise();
    const page = r.data?.farm?.due;
    if (!page) { setMore((m) => ({ ...m, busy: false })); return; }
    setMore((m) => ({ rows: [...m.rows, ...page.edges.map((e) => e.node)], next: page.pageInfo.hasNextPage ? page.pageInfo.endCursor ?? null : null, busy: false }));
  };
  const due = [...(first?.edges.map((e) => e.node) ?? []), ...more.rows];
  const names = useNames(due.flatMap((d) => [d.animalID, d.sireID]));
  // Offline, the forms stay (their writes are queued) and the due list says why it is missing.
  const reload = () => { if (navigator.onLine) again({ requestPolicy: 'network-only' }); };
  return (
    <section aria-labelledby="breeding-title">
      <h1 id="breeding-title">{t('breeding')}</h1>
      <div class="grid">
        <ServiceForm farmID={farmID} outside={outside} saved={reload} />
        <ScanForm farmID={farmID} saved={reload} />
        <HeatForm farmID={farmID} />
        <Mating farmID={farmID} />
      </div>
      <OutsideForm farmID={farmID} saved={reload} />
      <OutsideList farmID={farmID} outside={outside} saved={reload} />
      <h2 id="due-title">{t('dueList')} {first && <span class="muted" id="due-count">({due.length < first.totalCount ? `${due.length} / ` : ''}{first.totalCount})</span>}</h2>
      <p class="note">{t('dueNote')}</p>
      {!data?.farm ? (error ? <Failed message={error.message} /> : <p aria-busy="true">{t('loading')}</p>) : due.length === 0 ? <p id="due-list">{t('none')}</p> : (
        <table class="table" id="due-list" aria-labelledby="due-title">
          <thead><tr><th scope="col">{t('dam')}</th><th scope="col">{t('expected')}</th><th scope="col">{t('datedBy')}</th></tr></thead>
          <tbody>{due.map((d) => (
            <tr key={d.animalID}>
              <th scope="row"><a href={`/farms/${farmID}/animals/${d.animalID}`}>{names[d.animalID]?.label ?? '…'}</a></th>
              <td><strong>{showDate(d.expectedDate)}</strong>
                {d.expectedFrom && d.expectedTo && <><br /><small class="muted">{showDate(d.expectedFrom)} – {showDate(d.expectedTo)}</small></>}</td>
              <td>{t(`due_${d.basis}` as Key) ?? d.basis}
                {d.basis === 'service' && d.serviceKind && <><br /><small>{t(`kind_${d.serviceKind}` as Key)} {showDate(d.serviceDate)}{d.sireID && <> · {names[d.sireID]?.label ?? ''}</>}</small></>}
                <br /><small class="muted">{t('checked')} {showDate(d.checkDate)} ({t(`method_${d.method.toUpperCase()}` as Key) ?? d.method})</small></td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {more.next && <button type="button" id="due-more" class="secondary" disabled={more.busy} onClick={() => void showMore()}>{t('more')}</button>}
    </section>
  );
}
