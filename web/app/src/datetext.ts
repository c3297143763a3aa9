// A day as the app's date fields write and read it, in the user's date setting: year first
// (2026-04-20) or as their language writes it (English 04/20/2026, French 20/04/2026). Pure:
// no DOM, no preferences read here (the caller passes the style), so that web/devices_test.go
// (TestDeviceParsers) runs it under Node's test runner.
//
// A field reads what a farmer types, not only its own form: a day written year first is never
// ambiguous and is read in either style, and eight digits alone (20042026) are the style's
// order without separators, as a numeric keypad types them. A two-digit year is refused
// rather than guessed (28/11/26 could be 1926 for a birth date).

export type Part = 'year' | 'month' | 'day';

/** DayStyle is how a field writes a day: the parts' order, the separator and the letters its
 * placeholder shows for each part. */
export interface DayStyle { order: readonly [Part, Part, Part]; sep: string; letters: Record<Part, string> }

const letters: Record<'en' | 'fr', Record<Part, string>> = {
  en: { year: 'YYYY', month: 'MM', day: 'DD' },
  fr: { year: 'AAAA', month: 'MM', day: 'JJ' },
};

/** dayStyle is the style of the user's setting: ISO 8601's year-month-day, or the language's
 * numeric order (English as the United States writes it, month first, as the app's shown dates
 * do; French day first). */
export function dayStyle(lang: 'en' | 'fr', dates: 'iso' | 'local'): DayStyle {
  if (dates === 'iso') return { order: ['year', 'month', 'day'], sep: '-', letters: letters[lang] };
  return { order: lang === 'fr' ? ['day', 'month', 'year'] : ['month', 'day', 'year'], sep: '/', letters: letters[lang] };
}

/** placeholder shows the style's form: "YYYY-MM-DD", "JJ/MM/AAAA". */
export function placeholder(s: DayStyle): string {
  return s.order.map((p) => s.letters[p]).join(s.sep);
}

/** formatDay writes a day (YYYY-MM-DD) in the style; anything else is written as it is. */
export function formatDay(iso: string, s: DayStyle): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return iso;
  const parts: Record<Part, string> = { year: m[1]!, month: m[2]!, day: m[3]! };
  return s.order.map((p) => parts[p]).join(s.sep);
}

/** daysIn is the number of days of a month of the proleptic Gregorian calendar. */
export function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** parseDay reads a typed day: the day (YYYY-MM-DD), '' for nothing typed, or null for text
 * that is not a day of the calendar. strict wants every part at its full width (two-digit day
 * and month), as the field reads while the farmer is still typing: "2026-04-2" is not yet the
 * 2nd. Separators may be any of - / . and spaces. */
export function parseDay(text: string, s: DayStyle, strict = false): string | null {
  const v = text.trim();
  if (v === '') return '';
  let groups: string[];
  let order: readonly Part[] = s.order;
  if (/^\d{8}$/.test(v)) {
    let at = 0;
    groups = order.map((p) => { const n = p === 'year' ? 4 : 2; const g = v.slice(at, at + n); at += n; return g; });
  } else {
    groups = v.split(/\s*[-/.\s]\s*/);
    if (groups.length !== 3 || !groups.every((g) => /^\d+$/.test(g))) return null;
    if (groups[0]!.length === 4) order = ['year', 'month', 'day'];
  }
  const at: Record<Part, string> = { year: '', month: '', day: '' };
  order.forEach((p, i) => { at[p] = groups[i]!; });
  if (at.year.length !== 4 || at.month.length > 2 || at.day.length > 2) return null;
  if (strict && (at.month.length !== 2 || at.day.length !== 2)) return null;
  const y = Number(at.year), m = Number(at.month), d = Number(at.day);
  if (y < 1000 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m)) return null;
  return `${at.year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
