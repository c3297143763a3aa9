// A form field with the server's refusal of it underneath: a refused input (BAD_USER_INPUT)
// names its fields in extensions.fields, by the service's own names (keeper_name, birth_date,
// record_items[0].metadata.birth_history.holding_number), and each form shows the message under
// the field it names, the field marked invalid and described by it. Every form that shows
// field problems uses this, so they read and look the same everywhere.
import type { ComponentChildren } from 'preact';
import type { FieldProblem } from '../client';
import { t } from '../i18n';
import type { WriteOutcome } from '../outbox';

/** Problems are the messages of a refused write by the field they name. */
export type Problems = Record<string, string>;

/** fieldProblems reads a refused answer's field problems by field: the GraphQL argument's
 * `input.` (or `animalCreate.input.`, as the schema's own checks name it) is dropped, and so is the path of a fact inside a record (a purchase's holding
 * number is holding_number, as the fact names it). A problem of the whole fact is keyed ''. */
export function fieldProblems(fields: FieldProblem[] | undefined): Problems {
  const out: Problems = {};
  for (const p of fields ?? []) {
    if (!p.field) continue;
    const k = p.field.replace(/^(\w+\.)?input\./, '').replace(/^record_items\[\d+\]\.metadata\.birth_history\.?/, '');
    out[k] = out[k] ? `${out[k]}; ${p.message ?? ''}` : p.message ?? '';
  }
  return out;
}

/** invalid are the attributes of a field's control: its id and, once refused, aria-invalid and
 * the error under it as its description. */
export const invalid = (id: string, error?: string) => ({
  id, 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? `${id}-error` : undefined,
});

/** Field is a labelled control (made with invalid(id, error)) and the server's refusal of it. */
export function Field({ id, label, error, children }: { id: string; label: string; error?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}

/** judge reads a write's outcome for a form that shows the fields in shown: ok (sent, or
 * queued offline), the problems by field, and the line for its status (ok when sent). A refusal that names
 * none of the form's fields says the server's words; problems of fields the form does not show
 * are said there too, so none is lost. */
export function judge(out: WriteOutcome<unknown>, ok: string, shown: string[]): { ok: boolean; errs: Problems; msg: string } {
  if (!out.code && (out.queued || out.data !== undefined)) return { ok: true, errs: {}, msg: out.queued ? t('queued') : ok };
  const errs = fieldProblems(out.fields);
  const marked = Object.keys(errs).some((k) => shown.includes(k));
  const elsewhere = Object.entries(errs).filter(([k]) => !shown.includes(k)).map(([k, m]) => (k ? `${k}: ${m}` : m));
  const msg = marked ? [t('fixFields'), ...elsewhere].join(' ') : `${t('refused')}: ${out.message ?? t('error')}`;
  return { ok: false, errs, msg };
}
