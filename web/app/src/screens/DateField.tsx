// The app's date field: a day written and read in the user's date setting (Settings: year
// first, or as their language writes it), where a browser's own date input follows the
// browser's locale whatever the app is set to. A text field takes what a farmer types (the
// style's form, year first, or eight digits from a numeric keypad: datetext.ts) and a button
// beside it opens the browser's own calendar, so the picker a phone offers stays one tap away.
// The value in and out is always the day as the API writes it (YYYY-MM-DD), or '' for none.
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { dayStyle, formatDay, parseDay, placeholder } from '../datetext';
import { prefs, showDate, t } from '../i18n';

export interface DateProps {
  /** The text field's id (a DateField makes one when none is given). */
  id?: string;
  class?: string;
  /** The day shown: YYYY-MM-DD, or '' for none. */
  value: string;
  /** onValue gets each day the field comes to hold (YYYY-MM-DD), or '' once emptied. */
  onValue: (day: string) => void;
  required?: boolean;
  min?: string;
  max?: string;
  disabled?: boolean;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

/** DateInput is the field itself, for a label of the caller's (a Field's label for it). name
 * is the label's text, which the calendar button's name repeats. */
export function DateInput({ value, onValue, min, max, name, class: cls, ...rest }: DateProps & { name: string }) {
  const style = dayStyle(prefs.lang, prefs.dates);
  const form = placeholder(style);
  const [text, setText] = useState(() => formatDay(value, style));
  const box = useRef<HTMLInputElement>(null);
  const native = useRef<HTMLInputElement>(null);
  const shown = useRef({ value, form });
  // A day set from outside (a reset to today, the calendar, another control) or a change of
  // the setting is shown in the style; what the farmer is typing is left alone while it
  // still reads as the same day.
  useEffect(() => {
    const was = shown.current;
    shown.current = { value, form };
    if (was.form !== form || (was.value !== value && parseDay(text, style) !== value)) setText(formatDay(value, style));
  }, [value, form]);
  // The browser refuses to submit a form while a field says what is wrong with it: said as
  // each key is typed (a form submitted by the Enter that follows must already know), and
  // again after each drawing (a day or bounds set from outside).
  const check = (el: HTMLInputElement | null, v: string) => {
    const day = parseDay(v, style);
    el?.setCustomValidity(day === null ? `${t('writeDateAs')} ${form}`
      : day && max && day > max ? `${t('dateNotAfter')} ${showDate(max)}`
      : day && min && day < min ? `${t('dateNotBefore')} ${showDate(min)}` : '');
    return day;
  };
  useLayoutEffect(() => { check(box.current, text); });
  const typed = (el: HTMLInputElement) => {
    setText(el.value);
    const day = check(el, el.value);
    if (day !== null && day !== value) onValue(day);
  };
  const pick = () => {
    const n = native.current;
    try {
      if (n && typeof n.showPicker === 'function') { n.showPicker(); return; }
    } catch { /* no picker for this input here: typing is left */ }
    box.current?.focus();
  };
  return (
    <span class="date-row">
      <input {...rest} ref={box} class={cls} type="text" inputMode="numeric" autoComplete="off" spellcheck={false}
        placeholder={form} value={text} onInput={(e) => typed(e.currentTarget)}
        onChange={(e) => { const day = parseDay(e.currentTarget.value, style); if (day) setText(formatDay(day, style)); }} />
      <button type="button" class="date-pick secondary" aria-label={`${t('pickDate')}: ${name}`} disabled={rest.disabled} onClick={pick}>
        <svg aria-hidden="true" viewBox="0 0 24 24" width="22" height="22" fill="none" stroke="currentColor" stroke-width="2">
          <rect x="3" y="5" width="18" height="16" rx="2" /><path d="M3 10h18M8 3v4M16 3v4" />
        </svg>
      </button>
      <input ref={native} type="date" class="date-native" tabIndex={-1} aria-hidden="true" aria-label={name} value={value} min={min} max={max}
        onInput={(e) => { const v = e.currentTarget.value; if (v) { setText(formatDay(v, style)); if (v !== value) onValue(v); } }} />
    </span>
  );
}

/** DateField is a labelled date field: inline puts the label beside it (a screen's as-of day). */
export function DateField({ label, inline, id, ...p }: DateProps & { label: string; inline?: boolean }) {
  const own = useId();
  const fid = id ?? `date-${own}`;
  return (
    <div class={inline ? 'date-field inline' : 'date-field'}>
      <label for={fid}>{label}</label>
      <DateInput id={fid} name={label} {...p} />
    </div>
  );
}
