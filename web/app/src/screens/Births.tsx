// The birth evidence review: the sire candidates with their reasons and the intervals where
// each overlapped the dam's conception window, drawn on a timeline; a preview, then approval,
// which records the calving (the calf joins the register; docs/breeding.md, one birth path).
import { useState } from 'preact/hooks';
import { client } from '../client';
import { BirthApproveDocument, BirthPreviewDocument, BirthReviewDocument, type EvidenceFragment } from '../graphql/generated';
import { showDate, t, today } from '../i18n';
import { find, type Found } from './Forms';
import { DateField } from './DateField';

function Intervals({ ev }: { ev: EvidenceFragment }) {
  const w = ev.conceptionWindow;
  const cands = ev.sire.candidates;
  if (!w) return null;
  const d = (s: string) => Date.parse(s);
  const from = d(w.startDate) - 30 * 864e5, to = d(w.endDate) + 30 * 864e5;
  const W = 320, x = (s: string) => 90 + ((d(s) - from) / (to - from)) * (W - 100);
  const H = 24 + cands.length * 22;
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${t('conception')} ${showDate(w.startDate)} – ${showDate(w.endDate)}`}>
      <rect x={x(w.startDate)} y={2} width={Math.max(2, x(w.endDate) - x(w.startDate))} height={H - 4} class="window" />
      {cands.map((c, i) => (
        <g key={c.animal.id}>
          <text x={4} y={30 + i * 22} class="lbl">{c.animal.tag}</text>
          {c.overlapIntervals.map((o, j) => <rect key={j} x={x(o.startDate)} y={20 + i * 22} width={Math.max(3, x(o.endDate) - x(o.startDate))} height={12} class="bar" />)}
        </g>
      ))}
    </svg>
  );
}

export function Births({ farmID }: { farmID: string }) {
  const [damTag, setDamTag] = useState('');
  const [date, setDate] = useState(today());
  const [dam, setDam] = useState<Found | null>(null);
  const [ev, setEv] = useState<EvidenceFragment | null>(null);
  const [preview, setPreview] = useState<{ id: string; tasks: Array<{ name: string; dueDate: string }> } | null>(null);
  const [calf, setCalf] = useState({ tag: '', sex: 'female', status: 'alive' });
  const [msg, setMsg] = useState('');
  const review = async (e: Event) => {
    e.preventDefault();
    setMsg(''); setEv(null); setPreview(null);
    const list = await find(farmID, damTag);
    if (list.length !== 1) { setMsg(t('notFound')); return; }
    setDam(list[0]!);
    const r = await client.query(BirthReviewDocument, { farmID, damID: list[0]!.id, birthDate: date }, { requestPolicy: 'network-only' }).toPromise();
    if (r.error) { setMsg(r.error.message); return; }
    setEv(r.data?.birthEvidence ?? null);
  };
  const makePreview = async () => {
    if (!dam) return;
    const r = await client.mutation(BirthPreviewDocument, { input: { farmID, damID: dam.id, birthDate: date } }).toPromise();
    if (r.error) { setMsg(r.error.message); return; }
    const p = r.data?.birthPreviewCreate.birthPreview;
    if (p) setPreview({ id: p.id, tasks: p.tasks.map((k) => ({ name: k.name, dueDate: k.dueDate })) });
  };
  const approve = async () => {
    if (!preview) return;
    const r = await client.mutation(BirthApproveDocument, {
      input: { farmID, id: preview.id, requestID: crypto.randomUUID(), calves: [{ tag: calf.tag.trim() || null, sex: calf.sex, status: calf.status }] },
    }).toPromise();
    setMsg(r.error ? r.error.message : t('approved'));
  };
  return (
    <section aria-labelledby="births-title">
      <h1 id="births-title">{t('births')}</h1>
      <p class="note" id="births-calving-note">{t('birthIsCalving')} <a href={`/farms/${farmID}/calving`}>{t('calving')}</a></p>
      <form class="card" onSubmit={review}>
        <label>{t('damTag')}<input id="birth-dam" type="text" required value={damTag} onInput={(e) => setDamTag(e.currentTarget.value)} /></label>
        <DateField id="birth-date" label={t('birthDate')} required value={date} onValue={setDate} />
        <button type="submit" id="birth-review">{t('review')}</button>
      </form>
      {ev && <article class="card" aria-labelledby="ev-title" id="evidence">
        <h2 id="ev-title">{t('candidates')}</h2>
        {ev.conceptionWindow && <p>{t('conception')}: {showDate(ev.conceptionWindow.startDate)} – {showDate(ev.conceptionWindow.endDate)}</p>}
        <p>{t('sire')}: <strong>{ev.sire.animal?.tag ?? '—'}</strong> ({ev.sire.status}, {ev.sire.confidence})</p>
        <Intervals ev={ev} />
        <ul>{ev.sire.candidates.map((c) => <li key={c.animal.id}><strong>{c.animal.tag}</strong> {c.eligibility}: {c.reasons.join('; ')}</li>)}</ul>
        {ev.unresolved.length > 0 && <p class="muted">{ev.unresolved.join('; ')}</p>}
        <button type="button" id="birth-preview" onClick={() => void makePreview()}>{t('preview')}</button>
      </article>}
      {preview && <article class="card" aria-labelledby="pv-title">
        <h2 id="pv-title">{t('tasks')}</h2>
        <ul>{preview.tasks.map((k, i) => <li key={i}>{showDate(k.dueDate)} · {k.name}</li>)}</ul>
        <fieldset>
          <legend>{t('calf')}</legend>
          <label>{t('tag')}<input id="birth-calf-tag" type="text" autoComplete="off" required value={calf.tag} onInput={(e) => setCalf({ ...calf, tag: e.currentTarget.value })} /></label>
          <label>{t('sex')}<select id="birth-calf-sex" value={calf.sex} onChange={(e) => setCalf({ ...calf, sex: e.currentTarget.value })}>
            <option value="female">{t('female')}</option><option value="male">{t('male')}</option></select></label>
          <label>{t('status')}<select id="birth-calf-status" value={calf.status} onChange={(e) => setCalf({ ...calf, status: e.currentTarget.value })}>
            <option value="alive">{t('alive')}</option><option value="stillborn">{t('stillborn')}</option></select></label>
        </fieldset>
        <button type="button" id="birth-approve" onClick={() => void approve()}>{t('approve')}</button>
      </article>}
      {msg && <p role="status" id="birth-status">{msg}</p>}
    </section>
  );
}
