// Writes made offline wait in the outbox (IndexedDB) with the Idempotency-Key they were given
// when made; they are sent when the connection returns and their outcome is kept for the user
// to read. A write the server refuses on sync (a withdrawal, a history rule, a conflict with a
// write made meanwhile, a refused input) goes to the review list with the server's reason:
// the user fixes and resends it (a new Idempotency-Key: the old one would replay the
// refusal) or discards it knowingly. Nothing leaves the outbox without the user's say.
import type { AnyVariables, TypedDocumentNode } from '@urql/core';
import { stringifyDocument } from '@urql/core';
import { signedIn } from './auth';
import { send, type Outcome } from './client';
import { outboxAll, outboxDelete, outboxPut, type Queued } from './store';

const listeners = new Set<() => void>();
export function onOutbox(f: () => void): () => void { listeners.add(f); return () => listeners.delete(f); }
const changed = () => listeners.forEach((f) => f());

export type WriteOutcome<T> = Outcome<T> & { queued?: boolean };

/** write sends a mutation now, or queues it when the device is offline or signed out. */
export async function write<T, V extends AnyVariables>(label: string, doc: TypedDocumentNode<T, V>, variables: V): Promise<WriteOutcome<T>> {
  const key = crypto.randomUUID();
  if (navigator.onLine && signedIn()) {
    const out = await send(doc, variables, key);
    // Unauthenticated: the session could not be renewed; the write waits for the next sign-in.
    if (!out.offline && !lost(out)) return out;
  }
  await outboxPut({ key, at: new Date().toISOString(), label, query: stringifyDocument(doc), variables: variables as Record<string, unknown>, state: 'queued' });
  changed();
  return { queued: true };
}

/** lost: the server did not run the write because the session is gone (401, and no session
 * left to renew): not a refusal. A 401 while still signed in is the server's answer to the
 * user's role (a READER's write needs EDITOR), a refusal to show. */
const lost = (out: Outcome<unknown>) => out.code === 'UNAUTHENTICATED' && !signedIn();

let flushing = false;
/** flush replays the queued writes in order, each with its own key. */
export async function flush(): Promise<void> {
  if (flushing || !navigator.onLine || !signedIn()) return;
  flushing = true;
  try {
    const all = (await outboxAll()).filter((q) => q.state === 'queued').sort((a, b) => a.at.localeCompare(b.at));
    for (const q of all) {
      const out = await send(q.query, q.variables, q.key);
      if (out.offline || lost(out)) break;
      const next: Queued = out.data !== undefined
        ? { ...q, state: 'sent', message: undefined, code: undefined }
        : { ...q, state: out.code ? 'refused' : 'failed', code: out.code, message: out.message ?? '' };
      await outboxPut(next);
      changed();
    }
  } finally {
    flushing = false;
  }
}

export const outbox = outboxAll;
export async function dismiss(key: string): Promise<void> { await outboxDelete(key); changed(); }

/** unsent answers the writes not on the server: queued, or refused and not yet reviewed. */
export async function unsent(): Promise<Queued[]> {
  return (await outboxAll().catch(() => [])).filter((q) => q.state !== 'sent');
}

/** resend queues a reviewed write again with the user's fixed variables and a new key, and
 * sends it at once when it can. */
export async function resend(q: Queued, variables: Record<string, unknown>): Promise<void> {
  await outboxDelete(q.key);
  await outboxPut({ ...q, key: crypto.randomUUID(), at: new Date().toISOString(), variables, state: 'queued', message: undefined, code: undefined });
  changed();
  await flush();
}

addEventListener('online', () => { void flush(); });
// A missed 'online' event (a flaky link) is caught up within ten seconds.
setInterval(() => { void flush(); }, 10_000);
