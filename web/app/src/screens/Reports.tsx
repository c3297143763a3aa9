// The herd reports (docs/breeding.md, Herd reports): the calving percentage, the calving
// spread (also drawn as bars), the scan results, the 205-day adjusted weaning weights and the
// daily gain by group, over the period the user picks, each as a table and as the server's
// CSV. The weaning report carries the weaning form: a calf's weaning fact goes through the
// outbox like every write, and the server's adjusted weight for it is shown once sent.
// Loaded on demand (main.tsx), so it costs the first load nothing.
import { useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { authFetch, client } from '../client';
import {
  CalfWeaningDocument, GroupsDocument, ReportNamesDocument, ReportsDocument, WeaningDocument,
  type CalfWeaningQuery, type ReportsQuery,
} from '../graphql/generated';
import { count, percent, prefs, showDate, showGain, showWeight, t, toKg, today, type Key } from '../i18n';
import { write } from '../outbox';
import { said } from './Book';
import { Failed } from './Farms';
import { findOne } from './Forms';
import { DateField } from './DateField';

/** The reports, by the name of their REST path (and CSV file). */
type Report = 'calving' | 'calving-spread' | 'scans' | 'weaning' | 'gain';
const REPORTS: Report[] = ['calving', 'calving-spread', 'scans', 'weaning', 'gain'];
type Reports = NonNullable<ReportsQuery['farm']>['reports'];
type Spread = NonNullable<Reports['calvingSpread']>;

/** pct shows a per cent the server gives (0 to 100) as the language writes it. */
const pct = (v: number | null | undefined) => (v == null ? '—' : percent(v / 100, 2));

function shiftYear(date: string, years: number): string {
  return `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;
}

/** useReportNames reads the tags, outside animals' names and group names a report's lines name. */
function useReportNames(ids: Array<string | null | undefined>): Record<string, string> {
  const want = [...new Set(ids.filter((x): x is string => !!x))].sort();
  const [{ data }] = useQuery({ query: ReportNamesDocument, variables: { ids: want }, pause: want.length === 0 });
  const out: Record<string, string> = {};
  for (const n of data?.nodes ?? []) {
    if (n && 'tag' in n) out[n.id] = n.tag;
    else if (n && 'name' in n) out[n.id] = n.name;
  }
  return out;
}

/** Figures is a report's totals as a two-column table. */
function Figures({ id, caption, rows }: { id: string; caption: string; rows: Array<[Key, string]> }) {
  return (
    <table class="table" id={id}>
      <caption>{caption}</caption>
      <tbody>{rows.map(([k, v]) => <tr key={k}><th scope="row">{t(k)}</th><td>{v}</td></tr>)}</tbody>
    </table>
  );
}

/** SpreadChart draws the calving spread's periods as bars; the table below it has the numbers. */
function SpreadChart({ spread }: { spread: Spread }) {
  const ps = spread.periods;
  if (ps.length === 0) return null;
  const W = 320, H = 150, P = 24, top = 16;
  // At least six slots, so that a season of one or two periods does not draw one wide slab.
  const step = (W - 2 * P) / Math.max(ps.length, 6);
  const hi = Math.max(...ps.map((p) => p.percentage), 1);
  const h = (v: number) => (v / hi) * (H - P - top);
  const label = `${t('spreadChart')}: ${ps.map((p) => `${t('period')} ${p.period} ${pct(p.percentage)}`).join(', ')}`;
  return (
    <svg class="chart" id="spread-chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label}>
      <line x1={P} y1={H - P} x2={W - P} y2={H - P} class="axis" />
      {ps.map((p, i) => {
        const x = P + i * step + step * 0.15, w = step * 0.7;
        return (
          <g key={p.period}>
            <rect x={x} y={H - P - h(p.percentage)} width={w} height={h(p.percentage)} class="bar" />
            <text x={x + w / 2} y={H - P - h(p.percentage) - 4} class="lbl" text-anchor="middle">{pct(p.percentage)}</text>
            <text x={x + w / 2} y={H - 8} class="lbl" text-anchor="middle">{p.period}</text>
          </g>
        );
      })}
    </svg>
  );
}

function SpreadTable({ spread }: { spread: Spread }) {
  return (
    <>
      <Figures id="report-figures" caption={t('report_calving-spread')} rows={[
        ['firstCalving', showDate(spread.firstCalving)], ['calvings', String(spread.calvings)],
      ]} />
      <SpreadChart spread={spread} />
      <table class="table" id="report-table">
        <caption>{t('spreadPeriods')}</caption>
        <thead><tr><th scope="col">{t('period')}</th><th scope="col">{t('days')}</th><th scope="col">{t('calvings')}</th><th scope="col">%</th><th scope="col">{t('cumulative')}</th></tr></thead>
        <tbody>{spread.periods.map((p) => (
          <tr key={p.period}><th scope="row">{p.period}</th><td>{showDate(p.startDate)} – {showDate(p.endDate)}</td>
            <td>{p.calvings}</td><td>{pct(p.percentage)}</td><td>{pct(p.cumulativePercentage)}</td></tr>
        ))}</tbody>
      </table>
    </>
  );
}

interface WeightGroup { calves: number; meanAdjustedKG: number; minAdjustedKG: number; maxAdjustedKG: number }

function WeightTable<G extends WeightGroup>({ id, caption, head, lines, name }: { id: string; caption: string; head: string; lines: G[]; name: (g: G) => string }) {
  if (lines.length === 0) return null;
  return (
    <table class="table" id={id}>
      <caption>{caption}</caption>
      <thead><tr><th scope="col">{head}</th><th scope="col">{t('calves')}</th><th scope="col">{t('meanAdjusted')}</th><th scope="col">{t('range')}</th></tr></thead>
      <tbody>{lines.map((g, i) => (
        <tr key={i}><th scope="row">{name(g)}</th><td>{g.calves}</td><td>{showWeight(g.meanAdjustedKG)}</td>
          <td>{showWeight(g.minAdjustedKG)} – {showWeight(g.maxAdjustedKG)}</td></tr>
      ))}</tbody>
    </table>
  );
}

function ReportView({ report, reports }: { report: Report; reports: Reports }) {
  const names = useReportNames([
    ...(reports.weaning?.bySire.map((g) => g.sireID) ?? []),
    ...(reports.gain?.groups.map((g) => g.groupID) ?? []),
  ]);
  if (report === 'calving' && reports.calving) {
    const c = reports.calving;
    return <Figures id="report-table" caption={`${t('report_calving')}: ${showDate(c.from)} – ${showDate(c.to)}`} rows={[
      ['breedingSeason', `${showDate(c.exposureFrom)} – ${showDate(c.exposureTo)}`], ['femalesExposed', String(c.femalesExposed)],
      ['calvings', String(c.calvings)], ['calvesBorn', String(c.calvesBorn)], ['calvesBornAlive', String(c.calvesBornAlive)],
      ['stillborn', String(c.stillborn)], ['calvingPercentage', pct(c.calvingPercentage)],
    ]} />;
  }
  if (report === 'calving-spread' && reports.calvingSpread) return <SpreadTable spread={reports.calvingSpread} />;
  if (report === 'scans' && reports.scans) {
    const s = reports.scans;
    return <Figures id="report-table" caption={`${t('report_scans')}: ${showDate(s.from)} – ${showDate(s.to)}`} rows={[
      ['checks', String(s.checks)], ['animalsChecked', String(s.animalsChecked)], ['result_PREGNANT', String(s.pregnant)],
      ['result_EMPTY', String(s.empty)], ['result_RECHECK', String(s.recheck)], ['pregnancyRate', pct(s.pregnancyRate)],
    ]} />;
  }
  if (report === 'weaning' && reports.weaning) {
    const w = reports.weaning;
    return (
      <>
        <Figures id="report-figures" caption={`${t('report_weaning')}: ${showDate(w.from)} – ${showDate(w.to)}`} rows={[
          ['calvesAdjusted', String(w.calves)], ['calvesMissing', String(w.missing)],
        ]} />
        {w.calves === 0 ? <p id="report-table">{t('noneWeaned')}</p> : <>
          <WeightTable id="report-table" caption={t('bySire')} head={t('sire')} lines={w.bySire}
            name={(g) => (g.sireID ? names[g.sireID] ?? '…' : t('noSire'))} />
          <WeightTable id="report-dam-age" caption={t('byDamAge')} head={t('damAge')} lines={w.byDamAge}
            name={(g) => (g.damAgeYears == null ? t('unknown') : `${g.damAgeYears} ${t('years')}`)} />
        </>}
        <p class="note">{t('weaningNote')}</p>
      </>
    );
  }
  if (report === 'gain' && reports.gain) {
    const g = reports.gain;
    if (g.groups.length === 0) return <p id="report-table">{t('none')}</p>;
    return (
      <table class="table" id="report-table">
        <caption>{t('report_gain')}: {showDate(g.from)} – {showDate(g.to)}</caption>
        <thead><tr><th scope="col">{t('group')}</th><th scope="col">{t('animalsGained')}</th><th scope="col">{t('meanGain')}</th></tr></thead>
        <tbody>{g.groups.map((x) => (
          <tr key={x.groupID}><th scope="row">{names[x.groupID] ?? '…'}</th><td>{x.animals}</td><td>{showGain(x.meanDailyGainKG)}</td></tr>
        ))}</tbody>
      </table>
    );
  }
  return null;
}

type Adjusted = NonNullable<Extract<NonNullable<CalfWeaningQuery['node']>, { weights: unknown }>['weights']>;

/** WeaningForm records a calf's weaning (weight in the user's unit, stored in kg). */
function WeaningForm({ farmID, saved }: { farmID: string; saved: () => void }) {
  const [calf, setCalf] = useState('');
  const [date, setDate] = useState(today());
  const [weight, setWeight] = useState('');
  const [group, setGroup] = useState('');
  const [groups, setGroups] = useState<Array<{ id: string; name: string }>>([]);
  const [msg, setMsg] = useState('');
  const [result, setResult] = useState<{ tag: string; w: Adjusted } | null>(null);
  useEffect(() => {
    void client.query(GroupsDocument, { farmID }).toPromise().then((r) => {
      setGroups(r.data?.farm?.groups.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? []);
    });
  }, [farmID]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setMsg('');
    setResult(null);
    const a = await findOne(farmID, calf);
    if (!a) { setMsg(`${t('calfTag')}: ${t('notFound')}`); return; }
    const out = await write(`${t('recordWeaning')} ${a.tag}`, WeaningDocument, {
      input: { farmID, fact: { weaning: { animalID: a.id, date, kg: toKg(Number(weight)), groupID: group || null } } },
    });
    setMsg(said(out, 'weaningSaved'));
    if (out.queued || out.code || out.data === undefined) return;
    setCalf(''); setWeight('');
    saved();
    const r = await client.query(CalfWeaningDocument, { id: a.id }, { requestPolicy: 'network-only' }).toPromise();
    const n = r.data?.node;
    if (n && 'weights' in n) setResult({ tag: a.tag, w: n.weights });
  };
  const adj = result?.w.adjustedWeaningWeight;
  return (
    <form class="card" onSubmit={submit} id="weaning-form" aria-labelledby="weaning-title">
      <h2 id="weaning-title">{t('recordWeaning')}</h2>
      <label>{t('calfTag')}<input id="weaning-calf" type="text" autoComplete="off" required value={calf} onInput={(e) => setCalf(e.currentTarget.value)} /></label>
      <div class="dates">
        <DateField id="weaning-date" label={t('date')} required value={date} onValue={setDate} />
        <label>{t('weaningWeight')} ({prefs.unit})<input id="weaning-kg" type="number" inputMode="decimal" min="0.1" step="0.1" required value={weight} onInput={(e) => setWeight(e.currentTarget.value)} /></label>
      </div>
      <label>{t('weaningGroup')}<select id="weaning-group" value={group} onChange={(e) => setGroup(e.currentTarget.value)}>
        <option value="">—</option>{groups.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
      </select></label>
      <button type="submit" id="weaning-save">{t('save')}</button>
      {msg && <p role="status" id="weaning-status">{msg}</p>}
      {result && <p id="weaning-adjusted">{adj
        ? <>{result.tag}: {t('adjusted205')} <strong>{showWeight(adj.adjustedKG)}</strong>
          <br /><small class="muted">{t('born')} {showDate(adj.birthDate)}, {showWeight(adj.birthKG)} · {t('weanedAt')} {count(adj.ageDays, 'dayOld', 'daysOld')}, {showWeight(adj.weaningKG)}
            {adj.ageOfDamAdjustmentKG !== 0 && <> · {t('ageOfDamAdded')} {showWeight(adj.ageOfDamAdjustmentKG)}</>}</small></>
        : <>{result.tag}: {t('noAdjusted')} {result.w.adjustedWeaningMissing.map((m) => t(`missing_${m}` as Key) ?? m).join(', ')}</>}</p>}
    </form>
  );
}

export function Reports({ farmID }: { farmID: string }) {
  const year = today().slice(0, 4);
  const [report, setReport] = useState<Report>('calving');
  const [from, setFrom] = useState(`${year}-01-01`);
  const [to, setTo] = useState(today());
  // The breeding season of the calving percentage: by default the same days a year earlier
  // (the user changes it; the server assumes none).
  const [exFrom, setExFrom] = useState(shiftYear(`${year}-01-01`, -1));
  const [exTo, setExTo] = useState(shiftYear(today(), -1));
  const [csv, setCsv] = useState<{ url: string; name: string } | null>(null);
  const [csvMsg, setCsvMsg] = useState('');
  const valid = !!from && !!to && from <= to && (report !== 'calving' || (!!exFrom && !!exTo && exFrom <= exTo));
  const [{ data, error, fetching }, again] = useQuery({
    query: ReportsDocument,
    variables: {
      farmID, from, to, exposureFrom: exFrom || from, exposureTo: exTo || to,
      calving: report === 'calving', spread: report === 'calving-spread', scans: report === 'scans', weaning: report === 'weaning', gain: report === 'gain',
    },
    pause: !valid,
  });
  useEffect(() => () => { if (csv) URL.revokeObjectURL(csv.url); }, [csv]);
  useEffect(() => { setCsv(null); setCsvMsg(''); }, [report, from, to, exFrom, exTo]);

  // The CSV needs the bearer token, so it is fetched here and saved from memory.
  const download = async () => {
    setCsvMsg(t('loading'));
    const q = new URLSearchParams({ from, to });
    if (report === 'calving') { q.set('exposure_from', exFrom); q.set('exposure_to', exTo); }
    const res = await authFetch(`/v1/farm/${farmID}/reports/${report}.csv?${q}`, { headers: { Accept: 'text/csv' } }).catch(() => null);
    if (!res || !res.ok) { setCsvMsg(`${t('error')}: ${res ? `HTTP ${res.status}` : t('offlineShort')}`); return; }
    const name = `${report}-${from}-${to}.csv`;
    const url = URL.createObjectURL(await res.blob());
    setCsv({ url, name });
    setCsvMsg('');
    const a = document.createElement('a');
    a.href = url; a.download = name; a.click();
  };
  const reload = () => { if (navigator.onLine) again({ requestPolicy: 'network-only' }); };
  const reports = data?.farm?.reports;
  return (
    <section aria-labelledby="reports-title">
      <h1 id="reports-title">{t('reports')}</h1>
      <form class="card report-form" id="report-form" onSubmit={(e) => { e.preventDefault(); reload(); }}>
        <label>{t('report')}<select id="report-kind" value={report} onChange={(e) => setReport(e.currentTarget.value as Report)}>
          {REPORTS.map((r) => <option key={r} value={r}>{t(`report_${r}` as Key)}</option>)}
        </select></label>
        <div class="dates">
          <DateField id="report-from" label={t(report === 'calving' ? 'calvingFrom' : 'from')} required value={from} onValue={setFrom} />
          <DateField id="report-to" label={t('until')} required value={to} onValue={setTo} />
        </div>
        {report === 'calving' && <div class="dates">
          <DateField id="report-exposure-from" label={t('seasonFrom')} required value={exFrom} onValue={setExFrom} />
          <DateField id="report-exposure-to" label={t('until')} required value={exTo} onValue={setExTo} />
        </div>}
        {!valid && <p class="note" role="status">{t('periodBackwards')}</p>}
        <div class="actions">
          <button type="submit" id="report-show">{t('show')}</button>
          <button type="button" class="secondary" id="report-csv" disabled={!valid} onClick={() => void download()}>{t('downloadCSV')}</button>
        </div>
        {csvMsg && <p role="status" id="report-csv-status">{csvMsg}</p>}
        {csv && <p class="note"><a id="report-csv-file" href={csv.url} download={csv.name}>{t('saveAgain')} {csv.name}</a></p>}
      </form>
      <div aria-live="polite" aria-busy={fetching}>
        {!valid ? null : error ? <Failed message={error.message} /> : !reports ? <p aria-busy="true">{t('loading')}</p>
          : <ReportView report={report} reports={reports} />}
      </div>
      {report === 'weaning' && <WeaningForm farmID={farmID} saved={reload} />}
    </section>
  );
}
