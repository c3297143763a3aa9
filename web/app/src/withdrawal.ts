import { useQuery } from '@urql/preact';
import { AnimalWithdrawalDocument, AnimalWithdrawalOfDocument, type AnimalWithdrawalOfQuery } from './graphql/generated';
import { client } from './client';

type Line = NonNullable<Extract<NonNullable<AnimalWithdrawalOfQuery['node']>, { withdrawal?: unknown }>['withdrawal']>;

/** What the app knows of an animal's withdrawal on a day: its line (null: none that day), or
 * undefined while nothing has answered (offline, never read on this device: not known). */
export interface KnownWithdrawal { line: Line | null | undefined; fetching: boolean }

/** useAnimalWithdrawal is an animal's withdrawal on a day, for its page and the crush: its own
 * line of the farm's board (Animal.withdrawal), exact however many animals are under
 * withdrawal, where the farm's list is a page of 500. Offline, when the device kept no copy
 * of that answer, the kept copy of the farm's list answers what it holds, so that a page
 * opened offline still says what the device knows; the list is not read otherwise. */
export function useAnimalWithdrawal(farmID: string, id: string, asOf: string): KnownWithdrawal {
  const [one] = useQuery({ query: AnimalWithdrawalOfDocument, variables: { id, asOf } });
  const node = one.data?.node;
  const own = node && 'withdrawal' in node ? node.withdrawal ?? null : undefined;
  const [all] = useQuery({ query: AnimalWithdrawalDocument, variables: { farmID, asOf }, pause: own !== undefined || !one.error });
  if (own !== undefined) return { line: own, fetching: false };
  const list = all.data?.farm?.withdrawals.nodes;
  return { line: list ? list.find((n) => n.animalID === id) ?? null : undefined, fetching: one.fetching || all.fetching };
}

/** refreshWithdrawal reads an animal's withdrawal again from the server (after a correction):
 * the answer reaches every card that shows it through the cache. */
export function refreshWithdrawal(id: string, asOf: string): void {
  void client.query(AnimalWithdrawalOfDocument, { id, asOf }, { requestPolicy: 'network-only' }).toPromise();
}
