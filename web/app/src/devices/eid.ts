// ISO 11784/11785 animal codes as readers print them: the same forms, the same refusals and
// the same canonical 15 digits as the server's Go package eid (eid/eid.go, docs/identifiers.md),
// so a code the app reads from a reader is the one the server stores. Pure: no DOM, no I/O.
//
// An ISO 11784 code is 64 bits. Counted from the first bit a transponder sends: bit 1 is the
// animal flag, bits 2 to 15 are reserved (retagging counter, user information), bit 16 flags a
// data block, bits 17 to 26 hold the country (ISO 3166-1 numeric, 1 to 899) or manufacturer
// code (900 to 998; 999 marks test transponders) and bits 27 to 64 the national number (38
// bits: at most 274,877,906,943). ISO 24631-6 gives the representations readers show and
// transfer: the 3-digit code and the 12-digit national number, written together (15 digits)
// or apart.
import { countries } from './countries';

/** The largest national identification number 38 bits hold (2^38 − 1). */
export const maxNational = 274_877_906_943;

/** Why a value is not an animal's EID; the app words each in the user's language. */
export type EIDRefusal =
  | 'blank'         // nothing to read
  | 'form'          // none of the forms readers print
  | 'national'      // a national number above 2^38 − 1
  | 'country000'    // country code 000
  | 'country'       // 1 to 899 but not an ISO 3166-1 numeric code
  | 'code999'       // a code above 999 (hexadecimal forms)
  | 'flag'          // the animal flag is 0: not an animal identification transponder
  | 'industrial'    // a reader's R line: a non-animal transponder
  | 'ascii16'       // 16 decimal digits that start with neither 0 nor 1
  | 'ambiguous';    // 16 hexadecimal digits valid in both bit orders

export type EIDResult =
  | { ok: true; eid: string; country: number; national: number; test: boolean }
  | { ok: false; why: EIDRefusal };

const digits = /^[0-9]+$/;
const hex = /^[0-9A-F]+$/;

function refuse(why: EIDRefusal): EIDResult { return { ok: false, why }; }

function code(country: number, national: number): EIDResult {
  if (national > maxNational) return refuse('national');
  if (country === 0) return refuse('country000');
  if (country < 900 && !countries.has(country)) return refuse('country');
  const eid = String(country).padStart(3, '0') + String(national).padStart(12, '0');
  return { ok: true, eid, country, national, test: country === 999 };
}

function decimal(country: string, national: string): EIDResult {
  return code(Number(country), Number(national));
}

/**
 * parseEID reads an EID in any form readers emit: 15 digits (826000301234003), the code, a
 * space and 12 digits (826 000301234003), ASCII 16 (a leading 0 or the animal flag 1, then
 * the 15 digits), BDN (10000000826000301234003: the animal flag, 7 digits, the 15), dot-hex
 * (33A.0011F47753), 16 hexadecimal digits in either bit order, and the line formats of panel
 * and stick readers (LA 826 000301234003, A 00000 0 826 000301234003, A0000000826000301234003).
 * Space around the value is ignored; hexadecimal may be in either case.
 */
export function parseEID(input: string): EIDResult {
  const s = input.trim().toUpperCase();
  if (s === '') return refuse('blank');
  const line = readerLine(s);
  if (line) return line;
  if (s.length === 15 && digits.test(s)) return decimal(s.slice(0, 3), s.slice(3));
  if (s.length === 16 && s[3] === ' ' && digits.test(s.slice(0, 3)) && digits.test(s.slice(4))) return decimal(s.slice(0, 3), s.slice(4));
  if (s.length === 23 && digits.test(s)) {
    if (s[0] === '0') return refuse('flag');
    if (s[0] !== '1') return refuse('form');
    return decimal(s.slice(8, 11), s.slice(11));
  }
  if (s.length === 16 && digits.test(s)) {
    // 16 decimal digits are ASCII 16, never hexadecimal (issue 19's corruption).
    if (s[0] !== '0' && s[0] !== '1') return refuse('ascii16');
    return decimal(s.slice(1, 4), s.slice(4));
  }
  if (s.split('.').length === 2) return dotHex(s);
  if (s.length === 16 && hex.test(s)) return rawHex(s);
  return refuse('form');
}

/** readerLine reads the panel and stick readers' lines; null when s is none of them. */
function readerLine(s: string): EIDResult | null {
  const head = s.startsWith('L') ? s.slice(1) : s;
  if (head === '' || (head[0] !== 'A' && head[0] !== 'R')) return null;
  const animal = head[0] === 'A';
  const f = head.slice(1).split(/[ _]/).filter((x) => x !== '');
  if (f.some((x) => !digits.test(x))) return null;
  let country = '';
  let national = '';
  if (f.length === 2 && f[0]!.length === 3 && f[1]!.length === 12) {
    [country, national] = [f[0]!, f[1]!];
  } else if (f.length === 4 && f[0]!.length === 5 && f[1]!.length === 1 && f[3]!.length === 12 &&
    (f[2]!.length === 3 || (f[2]!.length === 4 && f[2]![0] === '0'))) {
    // TIRIS S2000; Datamars' F-210 writes the code in 4 digits (0999).
    [country, national] = [f[2]!.slice(-3), f[3]!];
  } else if (f.length === 1 && f[0]!.length === 22) {
    [country, national] = [f[0]!.slice(7, 10), f[0]!.slice(10)];
  } else if (animal || f.length === 0) {
    return null;
  }
  if (!animal) return refuse('industrial');
  return decimal(country, national);
}

function dotHex(s: string): EIDResult {
  const [c, n] = s.split('.') as [string, string];
  if (c.length < 1 || c.length > 3 || n.length < 1 || n.length > 10 || !hex.test(c) || !hex.test(n)) return refuse('form');
  const country = parseInt(c, 16);
  const national = parseInt(n, 16);
  if (national > maxNational) return refuse('national');
  if (country > 999) return refuse('code999');
  return code(country, national);
}

function reverse64(x: bigint): bigint {
  let r = 0n;
  for (let i = 0; i < 64; i++) { r = (r << 1n) | (x & 1n); x >>= 1n; }
  return r;
}

interface Reading { result: EIDResult; clean: boolean }

function read(x: bigint): Reading {
  if (x >> 63n === 0n) return { result: refuse('flag'), clean: false };
  const country = Number((x >> 38n) & 0x3ffn);
  if (country > 999) return { result: refuse('code999'), clean: false };
  return { result: code(country, Number(x & BigInt(maxNational))), clean: ((x >> 48n) & 0x7fffn) === 0n };
}

/** rawHex reads 16 hexadecimal digits in the bit order that makes a valid animal code. */
function rawHex(s: string): EIDResult {
  const v = BigInt('0x' + s);
  const first = read(v);
  const sent = read(reverse64(v));
  const a = first.result;
  const b = sent.result;
  if (a.ok && b.ok) {
    if (a.eid === b.eid || (first.clean && !sent.clean)) return a;
    if (sent.clean && !first.clean) return b;
    return refuse('ambiguous');
  }
  if (a.ok) return a;
  if (b.ok) return b;
  if (v >> 63n === 1n) return a;
  if ((v & 1n) === 1n) return b;
  return a;
}
