// The queued writes: those waiting to be sent, those the server refused (the review list: the
// server's reason, the write's values to fix, Send again or Discard after a tick), and those
// sent. Also the sign-out screen, which says what is not on the server yet before it signs out.
import { useEffect, useState } from 'preact/hooks';
import { restoredWrites, sessionEnded, signedIn, signIn, signOut } from '../auth';
import { clearCache } from '../client';
import { showDate, t } from '../i18n';
import { dismiss, flush, onOutbox, outbox, resend, unsent } from '../outbox';
import type { Queued } from '../store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Values the user may fix: a refused write's scalars, by their path in its variables. Ids are
// not offered (another id is another write); a withdrawal's acknowledgement is offered as a
// check box even when it was sent empty.
type Leaf = { path: string[]; value: string | number | boolean | null };
function leaves(v: unknown, path: string[] = []): Leaf[] {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => leaves(x, [...path, k]));
  }
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, String(i)]));
  const last = path[path.length - 1] ?? '';
  if (typeof v === 'string' && UUID.test(v)) return [];
  if (/ID$|^id$/.test(last)) return [];
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return [{ path, value: v }];
  if (v === null && last.startsWith('acknowledge')) return [{ path, value: false }];
  return [];
}
function setIn(v: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const out = structuredClone(v);
  let o = out as Record<string, unknown>;
  path.slice(0, -1).forEach((k) => { o = o[k] as Record<string, unknown>; });
  o[path[path.length - 1]!] = value;
  return out;
}

function Review({ q }: { q: Queued }) {
  const [vars, setVars] = useState(q.variables);
  const [sure, setSure] = useState(false);
  const id = `review-${q.key.slice(0, 8)}`;
  return (
    <li class="card review" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{q.label}</h3>
      <p>{showDate(q.at)} · <span class="state">{q.state === 'refused' ? t('refused') : t('failed')}</span>{q.code ? ` (${q.code})` : ''}</p>
      <p class="reason"><strong>{t('serverReason')}:</strong> {q.message}</p>
      <form onSubmit={(e) => { e.preventDefault(); void resend(q, vars); }}>
        {leaves(vars).map((l) => {
          const name = l.path.filter((p) => p !== 'input').join('.');
          const fid = `${id}-${l.path.join('-')}`;
          const at = (x: unknown) => setVars(setIn(vars, l.path, x));
          return typeof l.value === 'boolean'
            ? <label key={fid} class="check"><input type="checkbox" id={fid} checked={l.value} onChange={(e) => at(e.currentTarget.checked)} /> {name}</label>
            : <label key={fid}>{name}<input id={fid} type={typeof l.value === 'number' ? 'number' : 'text'} step="any" value={String(l.value ?? '')}
              onInput={(e) => at(typeof l.value === 'number' ? Number(e.currentTarget.value) : e.currentTarget.value)} /></label>;
        })}
        <button type="submit" class="resend">{t('resend')}</button>
      </form>
      <label class="check"><input type="checkbox" class="discard-sure" checked={sure} onChange={(e) => setSure(e.currentTarget.checked)} /> {t('discardSure')}</label>
      <button type="button" class="secondary discard" disabled={!sure} onClick={() => void dismiss(q.key)}>{t('discard')}</button>
    </li>
  );
}

function useOutbox(): Queued[] {
  const [items, setItems] = useState<Queued[]>([]);
  useEffect(() => {
    const load = () => void outbox().then((l) => setItems(l.sort((a, b) => a.at.localeCompare(b.at))), () => setItems([]));
    load();
    return onOutbox(load);
  }, []);
  return items;
}

export function Outbox() {
  const items = useOutbox();
  const waiting = items.filter((q) => q.state === 'queued');
  const review = items.filter((q) => q.state === 'refused' || q.state === 'failed');
  const sent = items.filter((q) => q.state === 'sent');
  return (
    <section aria-labelledby="outbox-title">
      <h1 id="outbox-title">{t('outbox')}</h1>
      {restoredWrites.count > 0 && <p class="banner" id="writes-back">{t('writesBack')} {restoredWrites.count}</p>}
      {restoredWrites.unopened > 0 && <p class="banner" id="writes-unopened">{t('writesUnopened')} {restoredWrites.unopened}</p>}
      {(!signedIn() || sessionEnded()) && waiting.length > 0 && <p class="banner">{t('signInAgain')} <button type="button" onClick={() => void signIn('/outbox')}>{t('signIn')}</button></p>}
      {review.length > 0 && <section aria-labelledby="review-title" id="review">
        <h2 id="review-title">{t('toReview')} ({review.length})</h2>
        <p>{t('reviewLead')}</p>
        <ul class="plain">{review.map((q) => <Review key={q.key} q={q} />)}</ul>
      </section>}
      <section aria-labelledby="waiting-title">
        <h2 id="waiting-title">{t('waiting')} ({waiting.length})</h2>
        {waiting.length + sent.length === 0 ? <p>{t('none')}</p> : <ul class="outbox" id="outbox-list">{[...waiting, ...sent].map((q) => (
          <li key={q.key} class={q.state}><strong>{q.label}</strong> · {showDate(q.at)} · <span class="state">{q.state === 'sent' ? t('sent') : t('queued')}</span>
            {q.state === 'sent' && <>{' '}<button type="button" class="secondary" onClick={() => void dismiss(q.key)}>{t('dismiss')}</button></>}</li>
        ))}</ul>}
        <button type="button" onClick={() => void flush()}>{t('sync')}</button>
      </section>
    </section>
  );
}

/** SignOut: with nothing unsent it signs out at once; otherwise it says what waits and lets the
 * user send it first, keep it locked for their next sign-in, or discard it knowingly. */
export function SignOut({ done }: { done: () => void }) {
  const [left, setLeft] = useState<Queued[] | null>(null);
  const [sure, setSure] = useState(false);
  const [busy, setBusy] = useState(false);
  const [msg, setMsg] = useState('');
  const out = async (keep: boolean) => { setBusy(true); await clearCache(); await signOut(keep); done(); };
  useEffect(() => {
    void unsent().then((l) => { if (l.length === 0) void out(true); else setLeft(l); });
  }, []);
  if (!left) return <p aria-busy="true">{t('loading')}</p>;
  const sendFirst = async () => {
    setBusy(true);
    await flush();
    const l = await unsent();
    if (l.length === 0) { await out(true); return; }
    setLeft(l); setMsg(t('stillUnsent')); setBusy(false);
  };
  return (
    <section class="card narrow" aria-labelledby="signout-title">
      <h1 id="signout-title">{t('signOut')}</h1>
      <p>{t('signOutLead')}</p>
      <p id="signout-count">{t('notSentYet')} {left.length}</p>
      <ul>{left.map((q) => <li key={q.key}>{q.label}</li>)}</ul>
      {msg && <p role="status" id="signout-status">{msg}</p>}
      <button type="button" id="signout-send" disabled={busy || !navigator.onLine || !signedIn()} onClick={() => void sendFirst()}>{t('sendFirst')}</button>
      <button type="button" id="signout-keep" class="secondary" disabled={busy} onClick={() => void out(true)}>{t('keepForNext')}</button>
      <label class="check"><input type="checkbox" id="signout-sure" checked={sure} onChange={(e) => setSure(e.currentTarget.checked)} /> {t('discardSure')}</label>
      <button type="button" id="signout-discard" class="secondary" disabled={busy || !sure} onClick={() => void out(false)}>{t('discardAll')}</button>
    </section>
  );
}
