// What a line from a device says: an animal's EID (a reader, or a scale head with a reader on
// it), a weight, or nothing the crush knows. One port may carry both kinds (a scale head that
// passes its reader's codes on), so every line is tried as both. Pure: no DOM, no I/O.
import { parseEID, type EIDRefusal } from './eid';
import { parseScaleLine, type ScaleReading } from './scale';

export type DeviceLine =
  | { kind: 'eid'; eid: string; test: boolean }
  | { kind: 'notAnimal'; why: EIDRefusal; line: string }
  | { kind: 'scale'; reading: ScaleReading }
  | { kind: 'unknown'; line: string };

/** readLine classifies one line (without its ending) from a reader or a scale head. */
export function readLine(line: string): DeviceLine {
  const scale = parseScaleLine(line);
  if (scale) return { kind: 'scale', reading: scale };
  const e = parseEID(line);
  if (e.ok) return { kind: 'eid', eid: e.eid, test: e.test };
  // A line in a reader's form that ISO 11784 refuses (an industrial R code, country 000, a
  // number above 38 bits) is said as such; anything else is not the crush's business.
  if (e.why !== 'form' && e.why !== 'blank') return { kind: 'notAnimal', why: e.why, line: line.trim() };
  return { kind: 'unknown', line: line.trim() };
}
