// An animal's pedigree (docs/pedigree.md): its ancestors to three generations as a table, one
// row per place of the chart, and Wright's inbreeding coefficient F. Where the records name
// no sire, the birth review's candidates stand in the sire's place with their probabilities.
import { useQuery } from '@urql/preact';
import { useRef } from 'preact/hooks';
import { NamesDocument, PedigreeDocument } from '../graphql/generated';
import { percent, prefs, t } from '../i18n';

export interface Named { label: string; herd: boolean }

/** useNames reads the tags of herd animals and the names of outside animals, by id. */
export function useNames(ids: Array<string | null | undefined>): Record<string, Named> {
  const want = [...new Set(ids.filter((x): x is string => !!x))].sort();
  const [{ data }] = useQuery({ query: NamesDocument, variables: { ids: want }, pause: want.length === 0 });
  // The names already known stay while a longer list (a due list's next page) is read, so
  // the rows shown keep their names instead of blinking back to "…".
  const known = useRef<Record<string, Named>>({});
  for (const n of data?.nodes ?? []) {
    if (n && 'tag' in n) known.current[n.id] = { label: n.tag, herd: true };
    else if (n && 'name' in n) known.current[n.id] = { label: n.name, herd: false };
  }
  return known.current;
}

/** place names a place of the chart ("dam's sire") in the user's language. */
export function place(relation: string): string {
  const parts = relation.split("'s ").map((w) => w.trim());
  if (prefs.lang === 'fr') {
    const [last, ...rest] = parts.reverse();
    return (last === 'dam' ? 'Mère' : 'Père') + rest.map((w) => (w === 'dam' ? ' de la mère' : ' du père')).join('');
  }
  return relation.charAt(0).toUpperCase() + relation.slice(1);
}

/** pct writes a share (an inbreeding coefficient, a probability) as a per cent. */
export const pct = (v: number): string => percent(v, 2);

export function Pedigree({ farmID, id }: { farmID: string; id: string }) {
  const [{ data, error }] = useQuery({ query: PedigreeDocument, variables: { id } });
  const p = data?.node && 'pedigree' in data.node ? data.node.pedigree : null;
  const names = useNames(p?.ancestors.map((a) => a.animalID) ?? []);
  return (
    <article class="card" aria-labelledby="pd">
      <h2 id="pd">{t('pedigree')}</h2>
      {error ? <p class="alert">{t('error')}: {error.message}</p> : !p ? <p aria-busy="true">{t('loading')}</p> : <>
        <p id="animal-inbreeding">{t('inbreeding')}: <strong>{pct(p.inbreeding)}</strong></p>
        {p.uncertainAncestors.length > 0 && <p class="note">{t('uncertainSire')}</p>}
        {p.ancestors.length === 0 ? <p>{t('noPedigree')}</p> : (
          <table class="table pedigree" id="pedigree">
            <caption class="sr">{t('pedigree')}</caption>
            <thead><tr><th scope="col">{t('place')}</th><th scope="col">{t('ancestor')}</th></tr></thead>
            <tbody>{p.ancestors.map((a) => {
              const n = names[a.animalID];
              return (
                <tr key={`${a.relation} ${a.animalID}`} class={`g${a.generation}`}>
                  <th scope="row">{place(a.relation)}</th>
                  <td>
                    {n?.herd ? <a href={`/farms/${farmID}/animals/${a.animalID}`}>{n.label}</a>
                      : n ? <>{n.label} <small class="muted">({t('notHerd')})</small></> : <small class="muted">{a.animalID.slice(0, 8)}</small>}
                    {a.probability < 1 && <small class="muted"> · {pct(a.probability)}</small>}
                  </td>
                </tr>
              );
            })}</tbody>
          </table>
        )}
      </>}
    </article>
  );
}
