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

// Allflex stick and panel readers let the user choose how an ISO code's line is written
// (the Allflex stick reader's serial protocol, "Transponder Identification Codes", printed as
// appendix 1 of the Allflex RFID Panel and Portal Readers user manual, V2.4): an optional
// initial character (#, L, X or G), an optional tag type (A for an animal code, R for an
// industrial one), then the optional reserved field (5 digits) and data-block flag (1
// digit), the country or manufacturer code (3 digits) and the national number (12 digits),
// the fields delimited by a comma, a semicolon, a space, a tab or nothing. The default,
// "LA 982 000001088420", and the TIRIS form the server reads itself; the others are
// rewritten here as the TIRIS form before parseEID reads them, so the code read is the one
// the server's eid package would read from that form.
const allflex = /^[#LXG]?([AR]?)[ ,;\t_]*(?:([0-9]{5})[ ,;\t_]*([0-9])[ ,;\t_]*)?([0-9]{3})[ ,;\t_]*([0-9]{12})$/;

/** allflexLine rewrites an Allflex reader's decimal ID-code line as the TIRIS form ("A 00000
 * 0 982 000001088420", or R for an industrial code); null when line is not one. */
export function allflexLine(line: string): string | null {
  const m = allflex.exec(line.trim().toUpperCase());
  if (!m) return null;
  return `${m[1] || 'A'} ${m[2] ?? '00000'} ${m[3] ?? '0'} ${m[4]} ${m[5]}`;
}

/** readLine classifies one line (without its ending) from a reader or a scale head. */
export function readLine(line: string): DeviceLine {
  const scale = parseScaleLine(line);
  if (scale) return { kind: 'scale', reading: scale };
  let e = parseEID(line);
  const tiris = e.ok ? null : allflexLine(line);
  if (tiris) {
    // "A982000123456789" is also 16 hexadecimal digits, which read as no valid code in
    // either bit order: the reader's line is the reading that makes sense.
    const a = parseEID(tiris);
    if (a.ok || (!e.ok && e.why === 'form')) e = a;
  }
  if (e.ok) return { kind: 'eid', eid: e.eid, test: e.test };
  // A line in a reader's form that ISO 11784 refuses (an industrial R code, country 000, a
  // number above 38 bits) is said as such; anything else is not the crush's business.
  if (e.why !== 'form' && e.why !== 'blank') return { kind: 'notAnimal', why: e.why, line: line.trim() };
  return { kind: 'unknown', line: line.trim() };
}
