// The GraphQL client: urql with Graphcache (a normalised cache, so a weight recorded on the
// weigh screen shows at once on the register and the animal page). Requests carry the
// in-memory bearer token; a 401 refreshes once (rotation) and retries.
import { Client, fetchExchange, type AnyVariables, type TypedDocumentNode } from '@urql/core';
import { offlineExchange, type Data } from '@urql/exchange-graphcache';
import { accessToken, refresh } from './auth';
import { storage } from './cache';

export async function authFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const go = async () => {
    const headers = new Headers(init?.headers);
    const token = await accessToken();
    if (token) headers.set('Authorization', `Bearer ${token}`);
    // The farm of the page: the server looks a node up on that farm first (on a cluster, one
    // shard rather than all). Only a hint: any answer is the same without it.
    const farm = location.pathname.match(/^\/farms\/([0-9a-f-]{36})(?:\/|$)/)?.[1];
    if (farm && !headers.has('Herdbook-Farm')) headers.set('Herdbook-Farm', farm);
    return fetch(input, { ...init, headers });
  };
  let res = await go();
  if (res.status === 401 && (await refresh())) res = await go();
  return res;
}

// Types without an id are embedded in their parent, never normalised on their own.
const embedded = () => null;
const keyless = [
  'AnimalProfile', 'AnimalConnection', 'AnimalEdge', 'PageInfo', 'Identifier', 'GroupConnection', 'GroupEdge',
  'TaskConnection', 'TaskEdge', 'FarmTaskConnection', 'FarmTaskEdge', 'NotificationConnection', 'NotificationEdge',
  'WithdrawalList', 'AnimalWithdrawal', 'RecordConnection', 'RecordEdge', 'FarmConnection', 'FarmEdge',
  'MedicineConnection', 'MedicineEdge', 'BirthEvidence', 'SireEvidence', 'SireCandidate', 'DateInterval',
  'BirthPreviewTask', 'NotificationsMarkReadPayload', 'WeightRecordPayload', 'SaleRecordPayload',
  'DeathRecordPayload', 'FactCreatePayload', 'BirthPreviewCreatePayload', 'BirthPreviewApprovePayload',
  'FarmSettings', 'BreedingAges', 'FarmSettingsUpdatePayload', 'MemberAddPayload', 'MemberUpdatePayload',
  'MemberDeactivatePayload', 'AuditEntryConnection', 'AuditEntryEdge',
  'CalvingEaseGrade', 'CalvingConnection', 'CalvingEdge', 'Calf', 'CalvingRecordPayload',
  'RecordVoidPayload', 'RecordAmendPayload', 'RecordItemVoidPayload', 'RecordItemAmendPayload', 'ChannelPreferences', 'NotificationPreferencesUpdatePayload',
  'AgeOfDamAdjustment', 'OutsideAnimalConnection', 'OutsideAnimalEdge', 'OutsideAnimalCreatePayload',
  'DueEntryConnection', 'DueEntryEdge', 'DueEntry', 'AnimalPedigree', 'PedigreeAncestor',
  'HerdReports', 'CalvingReport', 'SpreadReport', 'SpreadPeriod', 'ScanReport', 'WeaningReport', 'WeightGroup',
  'GainReport', 'GroupGain', 'AnimalWeights', 'AdjustedWeaning', 'WeightPoint', 'WeightGain',
  'OffsetPageInfo', 'OutsideAnimalUpdatePayload', 'OutsideAnimalDeletePayload', 'MatingAdvice',
  'HoldingCreatePayload', 'HoldingUpdatePayload', 'NoticeSubmissionCreatePayload', 'Reconciliation', 'RegistryDifference',
  'RegistryCredentials', 'RegistryCredentialsSetPayload', 'RecordCreatePayload',
];
// A statutory notice has no id: its stable key names it, so the registry screen's list and an
// animal page's clocks share one entry, and a recorded submission shows on both at once.
const named = { StatutoryNotice: (d: Data) => (typeof d.key === 'string' ? d.key : null) };

// Graphcache keeps what it reads in IndexedDB (cache.ts), so that after a reload without
// network every screen read before answers from the kept copy (the offline exchange answers a
// query from the cache when the network fails). Writes do not go through its queue (none is
// optimistic): the app's own outbox keeps them with their Idempotency-Key.
/** clearCache empties the kept copy (sign-out); the page is then reloaded. */
export const clearCache = () => storage.clear();

export const client = new Client({
  url: '/graphql',
  fetch: authFetch,
  requestPolicy: 'cache-and-network',
  preferGetMethod: false,
  exchanges: [
    offlineExchange({ keys: { ...Object.fromEntries(keyless.map((k) => [k, embedded])), ...named }, storage }),
    fetchExchange,
  ],
});

// The kept register's full read (sync.ts) and the register's own pages (Register.tsx) go past
// Graphcache, straight to the network: their rows go to IndexedDB or the screen only, and normalising a whole herd into the cache (a thousand animals,
// each with its profile and identifiers) held the main thread for a long while just after the
// register was drawn (Lighthouse's Total Blocking Time).
export const bulkClient = new Client({ url: '/graphql', fetch: authFetch, preferGetMethod: false, exchanges: [fetchExchange] });

/** A field a refused input names (the server's snake_case name, such as keeper_name) and why. */
export interface FieldProblem { field?: string; message?: string }
export interface Outcome<T> { data?: T; code?: string; message?: string; offline?: boolean; fields?: FieldProblem[] }

/** send runs a mutation with an Idempotency-Key, so that a retry or replay runs it once. */
export async function send<T, V extends AnyVariables>(doc: TypedDocumentNode<T, V> | string, variables: V, key: string): Promise<Outcome<T>> {
  const r = await client.mutation(doc as TypedDocumentNode<T, V>, variables, {
    fetchOptions: { headers: { 'Idempotency-Key': key } },
  }).toPromise();
  if (r.error?.networkError && !r.error.graphQLErrors.length) {
    return { offline: true, message: r.error.networkError.message };
  }
  if (r.error) {
    const g = r.error.graphQLErrors[0];
    // A refused input names its fields: shown with the message, so the user knows what to fix.
    const fields = (g?.extensions?.fields as FieldProblem[] | undefined) ?? [];
    const why = fields.map((f) => `${f.field ?? ''}: ${f.message ?? ''}`).join('; ');
    return { code: String(g?.extensions?.code ?? ''), message: (g?.message ?? r.error.message) + (why ? ` (${why})` : ''), fields };
  }
  return r.data ? { data: r.data } : { message: 'no data' };
}
