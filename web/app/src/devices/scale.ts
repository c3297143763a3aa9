// Weigh indicators' serial output lines, as their makers publish them. Only a stable weight is
// taken at the crush; an unstable one shows that the scale is live. A line that gives no unit
// gives no weight: nothing here assumes kg. Pure: no DOM, no I/O.
//
// The forms read (one line each, the ending already removed by LineSplitter):
//
// 1. Status, mode, weight, unit, comma-separated: "ST,GS,+00123.0kg", "US,NT,-  12.5,kg",
//    "OL,GS,...". Status ST stable, US unstable, OL overload, UL underload; mode GS gross or
//    NT net (also written G or N). Published as the "standard" transmission protocol of the
//    Dini Argeo 3590 indicators (manual §5.4: HH,KK,PPPPPPPP,UM CR LF), the auto-weight
//    string of the Tiger TI-02-P (manual §7.1: motion status, net/gross, sign, 7-character
//    weight, unit), the TMT TI-5700 (manual §11.3: "ST,GS,+00123.0kg") and the Kern GAB-N
//    balances (manual §12.1.3: header 1 ST/US, header 2 G/N, weight, unit kg or lb).
// 2. Weight, unit, then "?" when unstable: "   123.5 kg", "   123.5 kg ?", "12.0 lb ? N".
//    Published for the Ohaus indicators and balances (7000 series manual §5.2 and the
//    Explorer manual's RS232 output: weight right-justified, unit, stability "?" when
//    unstable and blank when stable, an optional G/N legend; CR LF).
//
// Tru-Test (Datamars) XR/ID and Gallagher W-series heads: their makers publish no serial line
// format that we could find (their own software reads them), so none is guessed here; a head
// set to one of the forms above, or to stream over the Bluetooth serial service, is read.

/** 1 lb in kg, exactly (the international pound). */
export const lbKg = 0.45359237;

export type ScaleUnit = 'kg' | 'lb';

export type ScaleReading =
  | { kind: 'weight'; stable: boolean; value: number; unit: ScaleUnit; kg: number; net: boolean }
  | { kind: 'overload' | 'underload' };

const number = '([+-]?) *([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)';
// 1: status, optional mode, weight, unit (kg, lb, lbs in either case), commas or spaces between.
const statusFirst = new RegExp(`^(ST|US|OL|UL) *, *(?:(GS|NT|G|N) *,? *)?(?:${number})? *,? *(KG|LB|LBS)? *$`, 'i');
// 2: weight, unit, optional "?", optional legend.
const weightFirst = new RegExp(`^${number} *(KG|LB|LBS) *(\\?)? *(G|N|NET|GROSS)? *$`, 'i');

function unitOf(u: string): ScaleUnit { return u.toLowerCase() === 'kg' ? 'kg' : 'lb'; }

function weight(stable: boolean, sign: string, num: string, unit: string, net: boolean): ScaleReading | null {
  const value = (sign === '-' ? -1 : 1) * Number(num);
  if (!Number.isFinite(value)) return null;
  const u = unitOf(unit);
  return { kind: 'weight', stable, value, unit: u, kg: u === 'kg' ? value : value * lbKg, net };
}

/** parseScaleLine reads one indicator line; null when it is none of the published forms. */
export function parseScaleLine(line: string): ScaleReading | null {
  const s = line.trim();
  let m = statusFirst.exec(s);
  if (m) {
    const status = m[1]!.toUpperCase();
    if (status === 'OL') return { kind: 'overload' };
    if (status === 'UL') return { kind: 'underload' };
    if (m[4] === undefined || m[5] === undefined) return null; // no weight or no unit: nothing to take
    return weight(status === 'ST', m[3] ?? '', m[4], m[5], (m[2] ?? '').toUpperCase().startsWith('N'));
  }
  m = weightFirst.exec(s);
  if (m) return weight(m[4] !== '?', m[1] ?? '', m[2]!, m[3]!, (m[5] ?? '').toUpperCase().startsWith('N'));
  return null;
}

/** takeable answers the kg of a reading the crush takes: stable and above zero; else null. */
export function takeable(r: ScaleReading | null): number | null {
  return r && r.kind === 'weight' && r.stable && r.kg > 0 ? r.kg : null;
}
