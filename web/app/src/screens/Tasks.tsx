// The task board: follow-up tasks by status, each marked done or cancelled in one tap; and
// the medicines with the inspector's book (the medicine book as the server prints it).
import { useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { authFetch } from '../client';
import { MedicinesDocument, TaskBoardDocument, TaskSetDocument, type TaskStatus } from '../graphql/generated';
import { showDate, t, today, type Key } from '../i18n';
import { write } from '../outbox';
import { Failed } from './Farms';

const COLUMNS: TaskStatus[] = ['TODO', 'DONE', 'CANCELLED'];

export function Tasks({ farmID }: { farmID: string }) {
  const [status, setStatus] = useState<TaskStatus>('TODO');
  const [{ data, error }, again] = useQuery({ query: TaskBoardDocument, variables: { farmID, status } });
  const [msg, setMsg] = useState('');
  if (error) return <Failed message={error.message} />;
  const tasks = data?.farm?.tasks.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  const set = async (id: string, to: TaskStatus) => {
    const out = await write(`${t('tasksDue')} ${to}`, TaskSetDocument, { input: { farmID, id, status: to } });
    setMsg(out.queued ? t('queued') : out.code ? `${t('refused')}: ${out.message}` : t('saved'));
    again({ requestPolicy: 'network-only' });
  };
  return (
    <section aria-labelledby="tasks-title">
      <h1 id="tasks-title">{t('taskBoard')}</h1>
      <div class="tabs" role="group" aria-label={t('status')}>
        {COLUMNS.map((c) => <button key={c} type="button" class={c === status ? '' : 'secondary'} aria-pressed={c === status} onClick={() => setStatus(c)}>{t(`task_${c}` as Key)}</button>)}
      </div>
      {msg && <p role="status" id="task-status">{msg}</p>}
      {!data ? <p aria-busy="true">{t('loading')}</p> : tasks.length === 0 ? <p>{t('none')}</p> : (
        <ul class="outbox" id="task-list">{tasks.map((k) => (
          <li key={k.id} class={k.dueOn && k.dueOn < today() && k.status === 'TODO' ? 'failed' : ''}>
            <strong>{k.name}</strong> · {showDate(k.dueOn)} · {k.animals.map((a) => <a key={a.id} href={`/farms/${farmID}/animals/${a.id}`}>{a.tag} </a>)}
            {k.status === 'TODO' && <div class="actions">
              <button type="button" onClick={() => void set(k.id, 'DONE')}>{t('task_DONE')}</button>
              <button type="button" class="secondary" onClick={() => void set(k.id, 'CANCELLED')}>{t('task_CANCELLED')}</button>
            </div>}
          </li>
        ))}</ul>
      )}
    </section>
  );
}

export function Medicines({ farmID }: { farmID: string }) {
  const [{ data, error }] = useQuery({ query: MedicinesDocument, variables: { farmID } });
  const [msg, setMsg] = useState('');
  if (error) return <Failed message={error.message} />;
  const meds = data?.farm?.medicines.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  // The book needs the bearer token, so it is fetched here and opened from memory.
  const openBook = async () => {
    setMsg(t('loading'));
    const res = await authFetch(`/v1/farm/${farmID}/medicine-book.html`, { headers: { Accept: 'text/html' } });
    if (!res.ok) { setMsg(`${t('error')}: HTTP ${res.status}`); return; }
    const url = URL.createObjectURL(await res.blob());
    window.open(url, '_blank', 'noopener');
    setMsg('');
  };
  return (
    <section aria-labelledby="med-title">
      <h1 id="med-title">{t('medicines')}</h1>
      <div class="actions">
        <button type="button" id="open-book" onClick={() => void openBook()}>{t('inspectorBook')}</button>
        <a class="button secondary" href={`/farms/${farmID}/medicines/new`}>{t('addMedicine')}</a>
      </div>
      {msg && <p role="status">{msg}</p>}
      {!data ? <p aria-busy="true">{t('loading')}</p> : meds.length === 0 ? <p>{t('none')}</p> : (
        <table class="table" id="medicine-list">
          <caption class="sr">{t('medicines')}</caption>
          <thead><tr><th scope="col">{t('medicine')}</th><th scope="col">{t('meatDays')}</th><th scope="col">{t('milkHours')}</th></tr></thead>
          <tbody>{meds.map((m) => (
            <tr key={m.id}><td>{m.name}{m.activeSubstance && <small class="muted"> · {m.activeSubstance}</small>}</td>
              <td>{m.withdrawalMeatDays ?? '—'}</td><td>{m.withdrawalMilkHours ?? '—'}</td></tr>
          ))}</tbody>
        </table>
      )}
    </section>
  );
}
