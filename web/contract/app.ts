// What the web app's screens do with the answers, written against the generated types: if a
// field a screen reads is renamed, retyped or made nullable, tsc --strict fails here.
import { run } from './client';
import {
  ApproveBirthPreviewDocument,
  BirthEvidenceReviewDocument,
  CreateAnimalDocument,
  CreateBirthPreviewDocument,
  FarmDashboardDocument,
  FarmRecordsDocument,
  HerdListDocument,
  MarkNotificationsReadDocument,
  MyFarmsDocument,
  NotificationsDocument,
  RecordPageDocument,
  TaskBoardDocument,
  UpdateTaskDocument,
  type ConceptionTiming,
  type HerdListQuery,
  type MovementKind,
  type SireVerdict,
  type TaskStatus,
} from './generated/graphql';

const endpoint = '/graphql';

export async function dashboard(token: string): Promise<string[]> {
  const farms = await run(endpoint, token, MyFarmsDocument, { first: 20 });
  const lines: string[] = [];
  for (const edge of farms.farms.edges ?? []) {
    if (!edge?.node) continue;
    const d = await run(endpoint, token, FarmDashboardDocument, { farmID: edge.node.id });
    const farm = d.farm;
    if (!farm) continue;
    lines.push(`${d.viewer.fullName ?? 'You'} on ${farm.name} (${farm.species})`);
    lines.push(`${farm.animals.totalCount} animals in ${farm.groups.totalCount} groups, ${farm.members?.length ?? 0} members`);
    for (const r of farm.records.edges ?? []) {
      if (r?.node) lines.push(`${r.node.appliedAt} ${r.node.type} ${r.node.name}`);
    }
    for (const t of farm.tasks.edges ?? []) {
      const status: TaskStatus | undefined = t?.node?.status;
      const tags = (t?.node?.animals ?? []).map((a) => a.tag).join(', ');
      if (t?.node) lines.push(`${t.node.dueOn ?? 'undated'} ${status} ${t.node.name}: ${tags}`);
    }
    lines.push(`${farm.notifications.totalCount} unread; settings v${farm.birthSettings.settingsVersion}`);
  }
  return lines;
}

export async function herd(token: string, farmID: string): Promise<string[]> {
  const out: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page: HerdListQuery = await run(endpoint, token, HerdListDocument, { farmID, first: 100, after, where: { tagHasPrefix: 'A' } });
    const animals = page.farm?.animals;
    if (!animals) break;
    for (const e of animals.edges ?? []) {
      if (e?.node) out.push(`${e.node.tag} ${e.node.name ?? ''} ${(e.node.groups ?? []).map((g) => g.name).join('/')}`);
    }
    if (!animals.pageInfo.hasNextPage) break;
    after = animals.pageInfo.endCursor ?? null;
  }
  // A calf as the yard form registers it: what REST's POST …/animals takes.
  const created = await run(endpoint, token, CreateAnimalDocument, {
    input: { farmID, tag: 'A-NEW', name: null, sex: 'FEMALE', birthDate: '2026-04-20', breed: 'Hereford', eid: '982 000123456789' },
  });
  const calf = created.animalCreate.animal;
  out.push(`${calf.id} ${calf.profile.sex ?? ''} ${calf.profile.birthDate ?? ''} ${calf.profile.dam?.tag ?? ''} ${calf.profile.identifiers.map((i) => i.value).join(',')}`);
  return out;
}

export async function recordPage(token: string, id: string, farmID: string): Promise<string[]> {
  const page = await run(endpoint, token, RecordPageDocument, { id });
  const out: string[] = [];
  if (page.node?.__typename === 'Record') {
    const r = page.node;
    out.push(`${r.name} (${r.type}) at ${r.appliedAt}: ${r.animalsConnection.totalCount} animals`);
    for (const item of r.items ?? []) out.push(`${item.name ?? ''}: ${JSON.stringify(item.metadata ?? {})}`);
    for (const f of r.files ?? []) out.push(`${f.name} ${f.mimeType} ${f.size} bytes`);
  }
  const list = await run(endpoint, token, FarmRecordsDocument, { farmID, first: 50, after: null });
  out.push(`${list.farm?.records.totalCount ?? 0} records, ${list.farm?.files.totalCount ?? 0} files`);
  return out;
}

export async function review(token: string, farmID: string, damID: string, birthDate: string): Promise<string[]> {
  const { birthEvidence: ev } = await run(endpoint, token, BirthEvidenceReviewDocument, { farmID, damID, dateOfBirth: birthDate });
  const out = [`sire ${ev.sire.state}${ev.sire.animal ? `: ${ev.sire.animal.tag}` : ''}`];
  for (const c of ev.sire.candidates) {
    const eligibility: SireVerdict = c.verdict;
    out.push(`${c.animal.tag}${c.animal.isActive ? '' : ' (deleted)'}: ${eligibility} ${c.reasons.join('; ')}`);
  }
  for (const m of ev.movementComparisons) {
    const when: ConceptionTiming = m.conception;
    const kind: MovementKind = m.movementKind;
    out.push(`${kind} on ${m.date} (${when}): ${m.record.name}, item ${m.recordItem.id}`);
  }
  const { birthPreviewCreate: { birthPreview } } = await run(endpoint, token, CreateBirthPreviewDocument, { input: { farmID, damID, birthDate } });
  out.push(`preview ${birthPreview.id} of ${birthPreview.dam.tag}: ${birthPreview.tasks.length} tasks, sire ${birthPreview.evidence.sire.state}`);
  const approved = await run(endpoint, token, ApproveBirthPreviewDocument, { input: { farmID, id: birthPreview.id, requestID: crypto.randomUUID(), calves: [{ tag: `CALF-${birthPreview.id.slice(0, 8)}`, sex: 'female', status: 'alive' }] } });
  out.push(...(approved.birthPreviewApprove.birthEvent.tasks ?? []).map((t) => `${t.name} due ${t.dueOn ?? 'undated'}`));
  return out;
}

export async function board(token: string, farmID: string): Promise<string[]> {
  const page = await run(endpoint, token, TaskBoardDocument, { farmID, status: 'TODO', first: 50, after: null });
  const out: string[] = [];
  for (const e of page.farm?.tasks.edges ?? []) {
    const t = e?.node;
    if (!t) continue;
    out.push(`${t.name} for ${t.birthEvent.dam.tag} born ${t.birthEvent.birthDate}: ${t.animals?.map((a) => a.tag).join(', ') ?? ''}`);
    const done = await run(endpoint, token, UpdateTaskDocument, { input: { farmID, id: t.id, status: 'DONE', dueOn: null } });
    out.push(`${done.taskUpdate.task.name} is ${done.taskUpdate.task.status}`);
  }
  return out;
}

export async function notifications(token: string, farmID: string): Promise<number> {
  const page = await run(endpoint, token, NotificationsDocument, { farmID, first: 20, after: null, unread: true });
  const ids = (page.farm?.notifications.edges ?? []).flatMap((e) => (e?.node ? [e.node.id] : []));
  const marked = await run(endpoint, token, MarkNotificationsReadDocument, { input: { farmID, ids } });
  return marked.notificationsMarkRead.markedCount;
}
