import { useQuery } from '@urql/preact';
import { DashboardDocument, FarmsDocument, MarkReadDocument } from '../graphql/generated';
import { client } from '../client';
import { showDate, t, today, type Key } from '../i18n';

export function Failed({ message }: { message: string }) {
  return <p class="alert" role="alert">{t('error')}: {message}</p>;
}

export function Farms() {
  const [{ data, error, fetching }] = useQuery({ query: FarmsDocument });
  if (error) return <Failed message={error.message} />;
  if (!data) return <p aria-busy="true">{fetching ? t('loading') : ''}</p>;
  const farms = data.farms.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  return (
    <section aria-labelledby="farms-title">
      <h1 id="farms-title">{t('farms')}</h1>
      {farms.length === 0 && <p>{t('noFarms')}</p>}
      <ul class="tiles">
        {farms.map((f) => <li key={f.id}><a class="tile" href={`/farms/${f.id}`}>{f.name}<small>{f.species}</small></a></li>)}
      </ul>
      <a class="button" id="farm-new" href="/farms/new">{t('newFarm')}</a>
    </section>
  );
}

export function Dashboard({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: DashboardDocument, variables: { farmID, asOf: today() } });
  if (error) return <Failed message={error.message} />;
  const f = data?.farm;
  if (!f) return <p aria-busy="true">{t('loading')}</p>;
  const groups = f.groups.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  const tasks = f.tasks.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  const notes = f.notifications.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  const markRead = async () => {
    await client.mutation(MarkReadDocument, { input: { farmID } }).toPromise();
    again({ requestPolicy: 'network-only' });
  };
  const animals = f.onFarm.totalCount + f.sold.totalCount + f.died.totalCount + f.movedOut.totalCount;
  return (
    <section aria-labelledby="dash-title">
      <h1 id="dash-title">{f.name}</h1>
      <Start farmID={farmID} done={{ animals: animals > 0, groups: f.groups.totalCount > 0, medicines: f.medicines.totalCount > 0, birth: f.birthSettings.settingsVersion > 0 }} />
      <div class="grid">
        <article class="card" aria-labelledby="hc">
          <h2 id="hc">{t('headCount')}</h2>
          <dl class="stats">
            <div><dt>{t('onFarm')}</dt><dd id="count-on-farm">{f.onFarm.totalCount}</dd></div>
            <div><dt>{t('sold')}</dt><dd>{f.sold.totalCount}</dd></div>
            <div><dt>{t('died')}</dt><dd>{f.died.totalCount}</dd></div>
            <div><dt>{t('movedOut')}</dt><dd>{f.movedOut.totalCount}</dd></div>
          </dl>
          <h3>{t('groups')}</h3>
          {groups.length ? <ul>{groups.map((g) => <li key={g.id}>{g.name}: {g.animalsConnection.totalCount}</li>)}</ul> : <p>{t('none')}</p>}
          <div class="actions">
            <a class="button" href={`/farms/${farmID}/register`}>{t('register')}</a>
            <a class="button secondary" href={`/farms/${farmID}/animals/new`}>{t('addAnimal')}</a>
          </div>
        </article>
        <article class="card" aria-labelledby="td">
          <h2 id="td">{t('tasksDue')} ({f.tasks.totalCount})</h2>
          {tasks.length ? <ul>{tasks.map((k) => <li key={k.id}>{showDate(k.dueOn)} · {k.name}</li>)}</ul> : <p>{t('none')}</p>}
        </article>
        <article class="card" aria-labelledby="uw">
          <h2 id="uw">{t('underWithdrawal')} ({f.withdrawals.totalCount})</h2>
          {f.withdrawals.nodes.length ? <ul>{f.withdrawals.nodes.map((w) => (
            <li key={w.animalID}><a href={`/farms/${farmID}/animals/${w.animalID}`}>{w.animalTag}</a> · {t('meatClear')} {showDate(w.meatClearOn)}
              {w.milkClearAt && <> · {t('milkClear')} {showDate(w.milkClearAt)}</>}</li>
          ))}</ul> : <p>{t('none')}</p>}
        </article>
        <article class="card" aria-labelledby="un">
          <h2 id="un">{t('unread')} ({f.notifications.totalCount})</h2>
          {notes.length ? <><ul>{notes.map((n) => <li key={n.id}><strong>{n.title}</strong> {n.body}</li>)}</ul>
            <button type="button" class="secondary" onClick={() => void markRead()}>{t('markRead')}</button></> : <p>{t('none')}</p>}
          <p><a href={`/farms/${farmID}/notifications`}>{t('allNotifications')}</a></p>
        </article>
      </div>
    </section>
  );
}

type Step = 'animals' | 'groups' | 'medicines' | 'birth';
const STEPS: Array<[Step, string, Key]> = [
  ['animals', 'animals/new', 'stepAnimals'], ['groups', 'groups/new', 'stepGroups'],
  ['medicines', 'medicines/new', 'stepMedicines'], ['birth', 'birth-settings', 'stepBirth'],
];

/** Start is a new farm's card of what to do next: each step links to its form and is marked
 * done once the farm has it (from the dashboard's own counts). It goes once all are done. */
function Start({ farmID, done }: { farmID: string; done: Record<Step, boolean> }) {
  if (STEPS.every(([s]) => done[s])) return null;
  return (
    <article class="card" id="start" aria-labelledby="start-title">
      <h2 id="start-title">{t('startTitle')}</h2>
      <p class="note">{t('startLead')}</p>
      <ol class="steps">{STEPS.map(([s, path, key]) => (
        <li key={s} id={`step-${s}`} data-done={done[s]}>
          <a href={`/farms/${farmID}/${path}`}>{t(key)}</a>
          {done[s] && <> <span class="badge">✓ {t('stepDone')}</span></>}
        </li>
      ))}</ol>
    </article>
  );
}
