// Writes made offline wait in the outbox (IndexedDB) with the Idempotency-Key they were given
// when made; they are sent when the connection returns and their outcome is kept for the user
// to read: a refusal (409 CONFLICT from the withdrawal guard, say) is shown, never dropped.
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
    if (!out.offline) return out;
  }
  await outboxPut({ key, at: new Date().toISOString(), label, query: stringifyDocument(doc), variables: variables as Record<string, unknown>, state: 'queued' });
  changed();
  return { queued: true };
}

let flushing = false;
/** flush replays the queued writes in order, each with its own key. */
export async function flush(): Promise<void> {
  if (flushing || !navigator.onLine || !signedIn()) return;
  flushing = true;
  try {
    const all = (await outboxAll()).filter((q) => q.state === 'queued').sort((a, b) => a.at.localeCompare(b.at));
    for (const q of all) {
      const out = await send(q.query, q.variables, q.key);
      if (out.offline) break;
      const next: Queued = out.data !== undefined
        ? { ...q, state: 'sent' }
        : { ...q, state: out.code === 'CONFLICT' || out.code === 'WITHDRAWAL' ? 'refused' : 'failed', message: out.message ?? '' };
      await outboxPut(next);
      changed();
    }
  } finally {
    flushing = false;
  }
}

export const outbox = outboxAll;
export async function dismiss(key: string): Promise<void> { await outboxDelete(key); changed(); }

addEventListener('online', () => { void flush(); });
// A missed 'online' event (a flaky link) is caught up within ten seconds.
setInterval(() => { void flush(); }, 10_000);
