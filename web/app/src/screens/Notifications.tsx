// The viewer's notifications of a farm (read and unread, marked read one by one or all at
// once), 100 at a time (Show more reads on by the connection's cursor), and the channels they
// hear on: this farm's choice and their default for the others.
import { useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { client } from '../client';
import {
  ChannelsSaveDocument, type ChannelsFragment, MarkReadDocument, NotificationsDocument, NotificationsMoreDocument,
  type NotePageFragment, type NotificationType,
} from '../graphql/generated';
import { count, showDate, t, type Key } from '../i18n';
import { write } from '../outbox';
import { said } from './Book';
import { Failed } from './Farms';

/** Channels is one choice of channels: a farm's (farmID) or the viewer's default (null). */
function Channels({ farmID, prefs, title, id, saved }: { farmID: string | null; prefs: ChannelsFragment; title: string; id: string; saved: () => void }) {
  const [inApp, setInApp] = useState(prefs.inApp);
  const [email, setEmail] = useState(prefs.email);
  const [sms, setSms] = useState(prefs.sms);
  const [address, setAddress] = useState(prefs.emailAddress ?? '');
  const [msg, setMsg] = useState('');
  useEffect(() => { setInApp(prefs.inApp); setEmail(prefs.email); setSms(prefs.sms); setAddress(prefs.emailAddress ?? ''); }, [prefs]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const a = address.trim();
    // The address is the user's, shared by every farm: sent only when it changed.
    const changed = a !== (prefs.emailAddress ?? '');
    const out = await write(`${t('channels')}: ${title}`, ChannelsSaveDocument, {
      input: { farmID, inApp, email, sms, ...(changed ? { emailAddress: a || null } : {}) },
    });
    setMsg(said(out, 'saved'));
    if (out.data !== undefined && !out.code) saved();
  };
  return (
    <form class="card" id={id} onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p class="note">{t(`source_${prefs.source}` as Key)}</p>
      <fieldset class="plain"><legend class="sr">{title}</legend>
        <label class="check"><input class="ch-in-app" type="checkbox" checked={inApp} onChange={(e) => setInApp(e.currentTarget.checked)} />{t('channel_IN_APP')}</label>
        <label class="check"><input class="ch-email" type="checkbox" checked={email} onChange={(e) => setEmail(e.currentTarget.checked)} />{t('channel_EMAIL')}</label>
        <label class="check"><input class="ch-sms" type="checkbox" checked={sms} onChange={(e) => setSms(e.currentTarget.checked)} />{t('channel_SMS')} <small class="muted">({prefs.phoneNumber})</small></label>
        <label>{t('emailAddress')}<input class="ch-address" type="email" autoComplete="email" value={address} onInput={(e) => setAddress(e.currentTarget.value)} /></label>
        {email && !address.trim() && <p class="note">{t('noEmailAddress')}</p>}
      </fieldset>
      <button type="submit" class="ch-save">{t('save')}</button>
      <div role="status" class="ch-status">{msg}</div>
    </form>
  );
}

type Note = NonNullable<NonNullable<NonNullable<NotePageFragment['edges']>[number]>['node']>;
interface Page { after: string; notes: Note[]; next: string | null }

const nodes = (p: NotePageFragment): Note[] => p.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
const nextOf = (p: NotePageFragment): string | null => (p.pageInfo.hasNextPage ? p.pageInfo.endCursor ?? null : null);

export function Notifications({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: NotificationsDocument, variables: { farmID } });
  const [msg, setMsg] = useState('');
  // The pages after the first, each kept with the cursor it was read after, so that a reload
  // reads the same pages again (a cursor names a notification, not a place).
  const [pages, setPages] = useState<Page[]>([]);
  const [busy, setBusy] = useState(false);
  const readPage = async (after: string): Promise<Page | null> => {
    const r = await client.query(NotificationsMoreDocument, { farmID, after }, { requestPolicy: 'network-only' }).toPromise();
    const p = r.data?.farm?.notifications;
    return p ? { after, notes: nodes(p), next: nextOf(p) } : null;
  };
  if (error) return <Failed message={error.message} />;
  const f = data?.farm;
  if (!data || !f) return <p aria-busy="true">{t('loading')}</p>;
  const notes = [...nodes(f.notifications), ...pages.flatMap((p) => p.notes)];
  const next = pages.length ? pages[pages.length - 1].next : nextOf(f.notifications);
  const unread = notes.filter((n) => !n.readAt).length;
  const more = async () => {
    if (!next) return;
    setBusy(true);
    const p = await readPage(next);
    if (p) setPages((old) => [...old, p]);
    setBusy(false);
  };
  const reload = () => {
    again({ requestPolicy: 'network-only' });
    const afters = pages.map((p) => p.after);
    if (afters.length) void Promise.all(afters.map(readPage)).then((got) => setPages(got.filter((p): p is Page => p !== null)));
  };
  const mark = async (ids: string[] | null, what: string) => {
    const out = await write(`${t('markRead')}: ${what}`, MarkReadDocument, { input: { farmID, ids } });
    setMsg(said(out, 'markedRead'));
    if (out.data !== undefined && !out.code) reload();
  };
  return (
    <section aria-labelledby="notes-title">
      <h1 id="notes-title">{t('notifications')}</h1>
      <p class="muted">{f.name}</p>
      <article class="card" aria-labelledby="notes-list-title">
        <h2 id="notes-list-title">{t('notifications')} ({count(unread, 'unreadCountOne', 'unreadCount')} / {f.notifications.totalCount})</h2>
        {notes.length === 0 ? <p>{t('none')}</p> : (
          <ul class="outbox" id="notes-list">{notes.map((n) => (
            <li key={n.id} class={n.readAt ? 'read' : 'unread'}>
              <strong>{n.title}</strong> <small class="muted">· {t(`channel_${n.type as NotificationType}` as Key)} · {showDate(n.createdAt)}</small>
              <p>{n.body}</p>
              {n.readAt ? <small class="muted">{t('readOn')} {showDate(n.readAt)}</small>
                : <><strong class="badge">{t('unreadOne')}</strong> <button type="button" class="secondary" aria-label={`${t('markOneRead')}: ${n.title}`} onClick={() => void mark([n.id], n.title)}>{t('markOneRead')}</button></>}
            </li>
          ))}</ul>
        )}
        {next && <button type="button" id="notes-more" class="secondary" disabled={busy} onClick={() => void more()}>{t('more')} ({notes.length} / {f.notifications.totalCount})</button>}
        {unread > 0 && <button type="button" id="notes-all-read" onClick={() => void mark(null, f.name)}>{t('markRead')}</button>}
        <div role="status" id="notes-status">{msg}</div>
      </article>
      <div class="grid">
        <Channels farmID={farmID} prefs={data.farmChannels} title={`${t('channelsFarm')} ${f.name}`} id="ch-farm" saved={reload} />
        <Channels farmID={null} prefs={data.defaultChannels} title={t('channelsDefault')} id="ch-default" saved={reload} />
      </div>
    </section>
  );
}
