// The registry screen (docs/registry.md, issue 29.5): the farm's holding (and, for an OWNER,
// the form that creates or edits it), its statutory notices overdue first with the time left
// in words, a reject with the registry's reason and the animal to correct, the keeper's record
// of what was sent or answered, and the reconciliation of the registry's herd list with the
// book. Read through Graphcache like every read screen, so it opens offline from the kept
// copy; writes go through the outbox. Loaded on demand (main.tsx).
import { useQuery } from '@urql/preact';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { bulkClient, type FieldProblem } from '../client';
import {
  HoldingCreateDocument, HoldingUpdateDocument, MyRoleDocument, NoticeSubmitDocument, ReconcileDocument, RegistryCredentialsSetDocument,
  RegistryDocument, type HoldingFieldsFragment, type NoticeRowFragment, type ReconcileQuery, type SendingFieldsFragment,
} from '../graphql/generated';
import { showDate, t, today, type Key } from '../i18n';
import { write } from '../outbox';
import { Clock, OPEN } from './Animal';
import { said } from './Book';
import { Failed } from './Farms';
import { Field, fieldProblems, invalid, judge } from './Field';
import { DateField } from './DateField';

const SCHEMES = ['uk.cph', 'de.hitier.bnr', 'nl.ubn', 'ie.herd', 'nz.nait', 'au.nlis.pic'];
const RULE_SETS = ['gb_cts', 'de_hitier', 'eu_2021_520', 'nl_rvo'];

/** useRole answers the viewer's role on the farm ('' while unknown). */
function useRole(farmID: string): string {
  const [{ data }] = useQuery({ query: MyRoleDocument, variables: { farmID } });
  return data?.farm?.members?.find((m) => m.isActive && m.userID === data.viewer.id)?.role ?? '';
}

/** byUrgency puts overdue notices first, then the others by deadline (ISO days sort as strings). */
function byUrgency(a: NoticeRowFragment, b: NoticeRowFragment): number {
  const late = (n: NoticeRowFragment) => (n.daysLeft < 0 && OPEN.includes(n.state) ? 0 : 1);
  return late(a) - late(b) || (a.deadline < b.deadline ? -1 : a.deadline > b.deadline ? 1 : 0);
}

type Form = Record<'scheme' | 'identifier' | 'herd_mark' | 'keeper_name' | 'rule_set' | 'herd_type' | 'time_zone', string>;

function HoldingForm({ farmID, holding, done }: { farmID: string; holding?: HoldingFieldsFragment | null; done: () => void }) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'Europe/London';
  const [f, setF] = useState<Form>({
    scheme: holding?.scheme ?? 'uk.cph', identifier: holding?.identifier ?? '', herd_mark: holding?.herdMark ?? '',
    keeper_name: holding?.keeperName ?? '', rule_set: holding?.ruleSet ?? 'gb_cts', herd_type: holding?.herdType ?? 'beef',
    time_zone: holding?.timeZone ?? zone,
  });
  const [errs, setErrs] = useState<Record<string, string>>({});
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  const put = (k: keyof Form) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true); setMsg('');
    // The fields the form does not show are sent back as they were (an update replaces all).
    const body = {
      scheme: f.scheme, identifier: f.identifier.trim(), herdMark: f.herd_mark.trim() || null, keeperName: f.keeper_name.trim(),
      ruleSet: f.rule_set, herdType: f.herd_type, timeZone: f.time_zone.trim(),
      name: holding?.name ?? null, keeperReference: holding?.keeperReference ?? null,
    };
    const out = holding
      ? await write(`${t('editHolding')} ${body.identifier}`, HoldingUpdateDocument, { input: { ...body, id: holding.id } })
      : await write(`${t('holding')} ${body.identifier}`, HoldingCreateDocument, { input: { ...body, farmID } });
    setBusy(false);
    const j = judge(out, t('holdingSaved'), Object.keys(f));
    setErrs(j.errs);
    setMsg(j.msg);
    if (j.ok && !out.queued) done();
  };
  const field = (k: keyof Form, label: Key, input: JSX.Element) => <Field id={`hf-${k}`} label={t(label)} error={errs[k]}>{input}</Field>;
  const attrs = (k: keyof Form) => invalid(`hf-${k}`, errs[k]);
  return (
    <form class="card" id="holding-form" onSubmit={submit} aria-labelledby="hf-title">
      <h2 id="hf-title">{holding ? t('editHolding') : t('holding')}</h2>
      {!holding && <p class="note">{t('noHolding')}</p>}
      {field('scheme', 'scheme', <select {...attrs('scheme')} value={f.scheme} onChange={put('scheme')}>
        {SCHEMES.map((s) => <option key={s} value={s}>{t(`scheme_${s.replace(/\./g, '_')}` as Key)}</option>)}</select>)}
      {field('identifier', 'holdingNumber', <input type="text" required autoComplete="off" {...attrs('identifier')} value={f.identifier} onInput={put('identifier')} />)}
      {field('herd_mark', 'herdMark', <input type="text" autoComplete="off" {...attrs('herd_mark')} value={f.herd_mark} onInput={put('herd_mark')} />)}
      {field('keeper_name', 'keeperName', <input type="text" required autoComplete="name" {...attrs('keeper_name')} value={f.keeper_name} onInput={put('keeper_name')} />)}
      {field('rule_set', 'ruleSet', <select {...attrs('rule_set')} value={f.rule_set} onChange={put('rule_set')}>
        {RULE_SETS.map((r) => <option key={r} value={r}>{t(`rule_${r}` as Key)}</option>)}</select>)}
      {field('herd_type', 'herdType', <select {...attrs('herd_type')} value={f.herd_type} onChange={put('herd_type')}>
        <option value="beef">{t('herd_beef')}</option><option value="dairy">{t('herd_dairy')}</option></select>)}
      {field('time_zone', 'holdingZone', <input type="text" required autoComplete="off" {...attrs('time_zone')} value={f.time_zone} onInput={put('time_zone')} />)}
      <button type="submit" id="holding-save" disabled={busy}>{t('saveHolding')}</button>
      {msg && <p role="status" id="holding-status">{msg}</p>}
    </form>
  );
}

function Holding({ h }: { h: HoldingFieldsFragment }) {
  return (
    <dl class="facts" id="holding">
      <dt>{t('holdingNumber')}</dt><dd id="holding-number">{h.identifier} <small class="muted">({h.scheme})</small></dd>
      {h.herdMark && <><dt>{t('herdMark').replace(/ \(.*$/, '')}</dt><dd>{h.herdMark}</dd></>}
      <dt>{t('keeperName')}</dt><dd>{h.keeperName}</dd>
      <dt>{t('ruleSet')}</dt><dd>{t(`rule_${h.ruleSet}` as Key)}</dd>
      <dt>{t('herdType')}</dt><dd>{t(`herd_${h.herdType}` as Key).replace(/ \(.*$/, '')}</dd>
      <dt>{t('holdingZone').replace(/ \(.*$/, '')}</dt><dd>{h.timeZone}</dd>
    </dl>
  );
}

/** Answer records a submission made outside Herdbook: sent, or the registry's acceptance or
 * reject with its reason. */
function Answer({ farmID, n, i, saved }: { farmID: string; n: NoticeRowFragment; i: number; saved: (msg: string) => void }) {
  const [state, setState] = useState<'sent' | 'accepted' | 'rejected'>(n.state === 'sent' ? 'accepted' : 'sent');
  const [ref, setRef] = useState('');
  const [cause, setCause] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const out = await write(`${t(`notice_${n.kind}` as Key)} ${n.animalTag}: ${t(`state_${state}` as Key)}`, NoticeSubmitDocument, {
      input: { farmID, key: n.key, state, registryReference: ref.trim() || null, cause: state === 'rejected' ? cause.trim() : null, requestID: crypto.randomUUID() },
    });
    setBusy(false);
    saved(said(out, 'answerSaved'));
  };
  return (
    <details class="fix">
      <summary>{t('recordAnswer')}</summary>
      <form onSubmit={submit} id={`answer-${i}`}>
        <fieldset class="choice"><legend class="sr">{t('recordAnswer')}</legend>
          {(['sent', 'accepted', 'rejected'] as const).map((s) => (
            <label key={s}><input type="radio" name={`answer-${i}`} value={s} checked={state === s} onChange={() => setState(s)} /> {t(`state_${s}`)}</label>
          ))}
        </fieldset>
        <label>{t('registryReference')}<input type="text" id={`answer-${i}-ref`} autoComplete="off" value={ref} onInput={(e) => setRef(e.currentTarget.value)} /></label>
        {state === 'rejected' && <label>{t('rejectCause')}<input type="text" id={`answer-${i}-cause`} required autoComplete="off" value={cause} onInput={(e) => setCause(e.currentTarget.value)} /></label>}
        <button type="submit" id={`answer-${i}-save`} disabled={busy}>{t('save')}</button>
      </form>
    </details>
  );
}

function Notice({ farmID, n, i, editor, saved }: { farmID: string; n: NoticeRowFragment; i: number; editor: boolean; saved: (msg: string) => void }) {
  const animal = `/farms/${farmID}/animals/${n.animalId}`;
  const s = n.submission;
  return (
    <li class={n.state === 'overdue' || n.state === 'rejected' ? 'failed notice' : 'notice'} data-key={n.key} data-kind={n.kind} data-state={n.state}>
      <strong>{t(`notice_${n.kind}` as Key)}</strong> · <a href={animal}>{n.animalTag}</a>
      <br /><Clock n={n} />
      {s?.registryReference && <><br /><small class="muted">{t('reference')}: {s.registryReference}</small></>}
      {n.state === 'rejected' && <p class="alert reject">{t('rejectedWhy')} <q>{s?.cause}</q><br />{t('correctThen')} <a href={animal}>{n.animalTag}</a></p>}
      <br /><small class="muted">{t('rule')}: {n.rule}</small>
      {editor && ['due', 'overdue', 'rejected', 'sent'].includes(n.state) && <Answer farmID={farmID} n={n} i={i} saved={saved} />}
    </li>
  );
}

function Notices({ farmID, notices, editor, saved }: { farmID: string; notices: NoticeRowFragment[]; editor: boolean; saved: (msg: string) => void }) {
  const sorted = [...notices].sort(byUrgency);
  const open = sorted.filter((n) => OPEN.includes(n.state));
  const sent = sorted.filter((n) => n.state === 'sent');
  const closed = sorted.filter((n) => !OPEN.includes(n.state) && n.state !== 'sent');
  let i = 0;
  const list = (id: string, ns: NoticeRowFragment[]) => (
    <ul class="outbox notices" id={id}>{ns.map((n) => <Notice key={n.key} farmID={farmID} n={n} i={i++} editor={editor} saved={saved} />)}</ul>
  );
  if (notices.length === 0) return <p id="notices-none">{t('noNotices')}</p>;
  return (
    <>
      <h3>{t('toReport')} ({open.length})</h3>
      {open.length ? list('notices-open', open) : <p>{t('none')}</p>}
      {sent.length > 0 && <><h3>{t('awaitingAnswer')} ({sent.length})</h3>{list('notices-sent', sent)}</>}
      {closed.length > 0 && <details><summary>{t('noticesDone')} ({closed.length})</summary>{list('notices-done', closed)}</details>}
    </>
  );
}

type Differences = NonNullable<NonNullable<ReconcileQuery['farm']>['reconciliation']>['differences'];

/** value shows a registry's or the book's value of a detail in the farmer's words. */
function value(field: string | null | undefined, v: string | null | undefined): string {
  if (!v) return '—';
  if (field === 'sex') return v === 'M' ? t('male') : v === 'F' ? t('female') : v;
  if (field === 'birth_date' || field === 'on_date') return showDate(v);
  return v;
}

/** Sending shows whether Herdbook sends the holding's notices to its registry, and lets an
 * OWNER save the keeper's credentials there and turn sending on or off (docs/registry.md, The
 * outbox). The password goes straight to the server, never into the outbox kept on this
 * device, so saving needs the network. */
function Sending({ holdingID, c, owner, saved }: { holdingID: string; c?: SendingFieldsFragment | null; owner: boolean; saved: () => void }) {
  const [user, setUser] = useState(c?.username ?? '');
  const [pw, setPw] = useState('');
  const [on, setOn] = useState(c?.sending ?? false);
  const [errs, setErrs] = useState<Record<string, string>>({});
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true); setMsg(''); setErrs({});
    const input = { holdingID, username: user.trim() || null, password: pw || null, sending: on };
    const r = await bulkClient.mutation(RegistryCredentialsSetDocument, { input }).toPromise();
    setBusy(false);
    if (r.error) {
      const g = r.error.graphQLErrors[0];
      const byField = fieldProblems(g?.extensions?.fields as FieldProblem[] | undefined);
      setErrs(byField);
      setMsg(r.error.networkError ? t('needsNetwork') : Object.keys(byField).length ? t('fixFields') : `${t('refused')}: ${g?.message ?? r.error.message}`);
      return;
    }
    setPw('');
    setMsg(t('sendingSaved'));
    saved();
  };
  const state = !c?.sending ? t('sendingOff') : c.active ? t('sendingActive') : t('sendingWaiting');
  const attrs = (k: string) => invalid(`rs-${k}`, errs[k]);
  return (
    <article class="card" id="sending" aria-labelledby="rs-title">
      <h2 id="rs-title">{t('sending')}</h2>
      {c ? <dl class="facts" id="sending-state">
        <dt>{t('registryService')}</dt><dd>{c.adapter ?? t('noRegistryService')}</dd>
        <dt>{t('registryUser')}</dt><dd>{c.username}</dd>
        <dt>{t('sendAutomatically')}</dt><dd id="sending-on">{state}</dd>
        {c.lastError && <><dt>{t('lastError')}</dt><dd id="sending-error">{c.lastError}</dd></>}
      </dl> : <p class="note" id="sending-none">{t('sendingNone')}</p>}
      {owner && <form onSubmit={submit} id="sending-form">
        <p class="note">{t('sendingLead')}</p>
        <Field id="rs-username" label={t('registryUser')} error={errs.username}>
          <input type="text" required={!c} autoComplete="off" {...attrs('username')} value={user} onInput={(e) => setUser(e.currentTarget.value)} /></Field>
        <Field id="rs-password" label={t('registryPassword')} error={errs.password}>
          <input type="password" required={!c} autoComplete="new-password" {...attrs('password')} value={pw} onInput={(e) => setPw(e.currentTarget.value)} />
          {c && <p class="note">{t('keepPassword')}</p>}</Field>
        <label class="check"><input type="checkbox" id="rs-sending" checked={on} onChange={(e) => setOn(e.currentTarget.checked)} /> {t('sendAutomatically')}</label>
        <button type="submit" id="rs-save" disabled={busy || !navigator.onLine}>{t('saveSending')}</button>
        {msg && <p role="status" id="rs-status">{msg}</p>}
      </form>}
    </article>
  );
}

function Reconcile({ farmID, fromRegistry }: { farmID: string; fromRegistry: boolean }) {
  const [list, setList] = useState('');
  const [asOf, setAsOf] = useState(today());
  const [diffs, setDiffs] = useState<Differences | null>(null);
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  const pick = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    if (file) setList(await file.text());
  };
  // ask compares a pasted herd list, or (registry) the registry's copy read by the server
  // with the keeper's credentials.
  const ask = async (registry: boolean) => {
    setBusy(true); setMsg(''); setDiffs(null);
    const vars = registry ? { farmID, asOf, fromRegistry: true } : { farmID, asOf, herdList: list };
    // Asked past Graphcache: the answer is a question's, not a copy to keep.
    const r = await bulkClient.query(ReconcileDocument, vars, { requestPolicy: 'network-only' }).toPromise();
    setBusy(false);
    if (r.error) {
      const g = r.error.graphQLErrors[0];
      const fields = ((g?.extensions?.fields as FieldProblem[] | undefined) ?? []).map((f) => f.message).join('; ');
      setMsg(r.error.networkError ? t('needsNetwork') : `${t('refused')}: ${fields || g?.message || r.error.message}`);
      return;
    }
    setDiffs(r.data?.farm?.reconciliation?.differences ?? []);
  };
  const compare = (e: Event) => { e.preventDefault(); void ask(false); };
  return (
    <form class="card" id="reconcile" onSubmit={compare} aria-labelledby="rc-title">
      <h2 id="rc-title">{t('reconciliation')}</h2>
      <p class="note">{t('reconcileLead')}</p>
      <label>{t('herdList')}<textarea id="rc-list" rows={5} required spellcheck={false} autoComplete="off" value={list} onInput={(e) => setList(e.currentTarget.value)} /></label>
      <label>{t('herdListFile')}<input id="rc-file" type="file" accept=".txt,.csv,text/plain" onChange={(e) => void pick(e)} /></label>
      <DateField id="rc-as-of" label={t('asOf')} required value={asOf} onValue={(v) => setAsOf(v || today())} />
      <button type="submit" id="rc-compare" disabled={busy || !navigator.onLine}>{t('compare')}</button>
      {fromRegistry && <button type="button" class="secondary" id="rc-registry" disabled={busy || !navigator.onLine} onClick={() => void ask(true)}>{t('readFromRegistry')}</button>}
      {!navigator.onLine && <p class="note">{t('needsNetwork')}</p>}
      {msg && <p role="status" id="rc-status">{msg}</p>}
      <div role="status">{diffs && (diffs.length === 0 ? <p id="rc-agree">{t('agree')}</p> : <h3>{t('differences')} ({diffs.length})</h3>)}</div>
      {diffs && diffs.length > 0 && <>
        <ul class="outbox notices" id="rc-differences">{diffs.map((d, i) => (
          <li key={i} data-kind={d.kind} data-tag={d.tag}>
            <strong>{d.tag}</strong>{' '}
            {d.kind === 'differs'
              ? <>{t(`field_${d.field}` as Key)} {t('diff_differs')} {t('registrySays')} <strong>{value(d.field, d.registry)}</strong>, {t('bookSays')} <strong>{value(d.field, d.book)}</strong>.</>
              : t(`diff_${d.kind}` as Key)}
            <br />{t(`fix_${d.fix}` as Key)}
          </li>
        ))}</ul>
      </>}
    </form>
  );
}

export function Registry({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: RegistryDocument, variables: { farmID } });
  const role = useRole(farmID);
  const [editing, setEditing] = useState(false);
  const [msg, setMsg] = useState('');
  if (error && !data) return <Failed message={error.message} />;
  const farm = data?.farm;
  const h = farm?.holding;
  const owner = role === 'OWNER';
  const reread = () => again({ requestPolicy: 'network-only' });
  return (
    <section aria-labelledby="registry-title">
      <h1 id="registry-title">{t('registryScreen')}</h1>
      {!data ? <p aria-busy="true">{t('loading')}</p> : <>
        {h && !editing && <article class="card" aria-labelledby="holding-title">
          <h2 id="holding-title">{t('holding')}</h2>
          <Holding h={h} />
          {owner && <button type="button" class="secondary" id="holding-edit" onClick={() => setEditing(true)}>{t('editHolding')}</button>}
        </article>}
        {(!h || editing) && (owner
          ? <HoldingForm farmID={farmID} holding={h} done={() => { setEditing(false); reread(); }} />
          : <p class="card note" id="holding-none">{t('noHolding')} {t('ownerOnly')}</p>)}
        {h && <article class="card" aria-labelledby="notices-title">
          <h2 id="notices-title">{t('notices')}</h2>
          {msg && <p role="status" id="notice-status">{msg}</p>}
          <Notices farmID={farmID} notices={farm?.statutoryNotices ?? []} editor={owner || role === 'EDITOR'} saved={(m) => { setMsg(m); reread(); }} />
        </article>}
        {h && (owner || h.registryCredentials) && <Sending holdingID={h.id} c={h.registryCredentials} owner={owner} saved={reread} />}
        {h && <Reconcile farmID={farmID} fromRegistry={!!h.registryCredentials?.adapter && (owner || role === 'EDITOR')} />}
      </>}
    </section>
  );
}
