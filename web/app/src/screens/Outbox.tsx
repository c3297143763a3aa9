// The queued writes and their outcomes: sent, refused (a 409 is shown, never dropped), failed.
import { useEffect, useState } from 'preact/hooks';
import { signedIn, signIn } from '../auth';
import { showDate, t } from '../i18n';
import { dismiss, flush, onOutbox, outbox } from '../outbox';
import type { Queued } from '../store';

export function Outbox() {
  const [items, setItems] = useState<Queued[]>([]);
  useEffect(() => {
    const load = () => void outbox().then(setItems, () => setItems([]));
    load();
    return onOutbox(load);
  }, []);
  return (
    <section aria-labelledby="outbox-title">
      <h1 id="outbox-title">{t('outbox')}</h1>
      {!signedIn() && items.some((q) => q.state === 'queued') && <p class="banner">{t('signInAgain')} <button type="button" onClick={() => void signIn('/outbox')}>{t('signIn')}</button></p>}
      {items.length === 0 ? <p>{t('none')}</p> : <ul class="outbox" id="outbox-list">{items.map((q) => (
        <li key={q.key} class={q.state}>
          <strong>{q.label}</strong> · {showDate(q.at)} · <span class="state">{q.state === 'queued' ? t('queued') : q.state === 'sent' ? t('sent') : q.state === 'refused' ? t('refused') : t('failed')}</span>
          {q.message && <p>{q.message}</p>}
          {q.state !== 'queued' && <button type="button" class="secondary" onClick={() => void dismiss(q.key)}>{t('dismiss')}</button>}
        </li>
      ))}</ul>}
      <button type="button" onClick={() => void flush()}>{t('sync')}</button>
    </section>
  );
}
