// Tests of the web app's device parsers (web/app/src/devices), run by web/devices_test.go
// (TestDeviceParsers) with `node --test` against the modules compiled into DEVICES_DIR.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.DEVICES_DIR;
if (!dir) throw new Error('DEVICES_DIR is not set: run through go test -run TestDeviceParsers ./web/');
const require = createRequire(join(dir, 'x.js'));
const { parseEID, maxNational } = require('./eid.js');
const { LineSplitter, maxLine } = require('./lines.js');
const { parseScaleLine, takeable, lbKg } = require('./scale.js');
const { readLine, allflexLine } = require('./read.js');

// ISO 11784: bits 17–26 the country code, 27–64 the national number (38 bits); ISO 24631-6's
// representation: the 3-digit code, then the 12-digit national number, together or apart.
test('ISO 11784 code in the ISO 24631-6 representations', () => {
  for (const s of ['982000123456789', '982 000123456789', ' 982000123456789\r', '0982000123456789']) {
    const r = parseEID(s);
    assert.equal(r.ok, true, s);
    assert.equal(r.eid, '982000123456789');
    assert.equal(r.country, 982);
    assert.equal(r.national, 123456789);
    assert.equal(r.test, false);
  }
  assert.equal(maxNational, 2 ** 38 - 1);
  assert.deepEqual(parseEID('999000000000001'), { ok: true, eid: '999000000000001', country: 999, national: 1, test: true });
});

// Panel and stick readers' lines: the Allflex panel reader manual (LA, TIRIS S2000), the
// Datamars GES3S manual (ISO long, ISO short, TIRIS, F-210, BDN).
test('readers\' published line forms', () => {
  for (const [line, want] of [
    ['LA 982 000001088420', '982000001088420'], ['LA_982_000001088420', '982000001088420'],
    ['LA_00000_0_982_000001088420', '982000001088420'], ['A0000000964000000123456', '964000000123456'],
    ['964 000000123456', '964000000123456'], ['A 00000 0 964 000000123456', '964000000123456'],
    ['A 00000 0 0999 000000123456', '999000000123456'], ['10000000964000000123456', '964000000123456'],
    ['33A.0011F47753', '826000301234003'], ['8000CE8011F47753', '826000301234003'], ['CAEE2F8801730001', '826000301234003'],
  ]) assert.equal(parseEID(line).eid, want, line);
});

test('what ISO 11784 refuses', () => {
  for (const [s, why] of [
    ['826274877906944', 'national'], ['000012903989251', 'country000'], ['123000000000001', 'country'],
    ['3E8.0000000001', 'code999'], ['R00060000000000123456', 'industrial'], ['00000000964000000123456', 'flag'],
    ['2826000301234003', 'ascii16'], ['', 'blank'], ['98200012345678', 'form'], ['982-000123456789', 'form'],
  ]) assert.deepEqual(parseEID(s), { ok: false, why }, s);
});

// The server's eid.Parse answered every value of the corpus (web/devices_test.go): the app's
// parser must read the same values as the same code, and refuse the same values for the same
// reason.
test('agrees with the server\'s eid package on every value', () => {
  const corpus = JSON.parse(readFileSync(process.env.EID_CORPUS, 'utf8'));
  assert.ok(corpus.length > 20000);
  const reason = (msg) =>
    msg.includes('must not be blank') ? 'blank'
      : msg.includes('does not start with 0 or 1') ? 'ascii16'
        : msg.includes('reads as') ? 'ambiguous'
          : msg.includes('non-animal') ? 'industrial'
            : msg.includes('animal flag 0') ? 'flag'
              : msg.includes('national identification number') ? 'national'
                : msg.includes('country code 000') ? 'country000'
                  : msg.includes('not an ISO 3166-1') ? 'country'
                    : msg.includes('above 999') ? 'code999'
                      : 'form';
  let bad = [];
  for (const c of corpus) {
    const got = parseEID(c.in);
    const want = c.want ? { ok: true, eid: c.want } : { ok: false, why: reason(c.refused) };
    const same = got.ok === want.ok && (got.ok ? got.eid === want.eid : got.why === want.why);
    if (!same) bad.push(`${JSON.stringify(c.in)}: app ${JSON.stringify(got)}, server ${c.want ?? c.refused}`);
  }
  assert.deepEqual(bad.slice(0, 10), []);
});

test('line splitter: chunks split mid-line, CR, LF and CR LF', () => {
  const s = new LineSplitter();
  assert.deepEqual(s.push('982 0001'), []);
  assert.deepEqual(s.push('23456789\r'), ['982 000123456789']);
  // The LF of a CR LF arrives in the next chunk: no empty line, no lost line.
  assert.deepEqual(s.push('\nST,GS,+00123.0kg\r\nUS,GS,'), ['ST,GS,+00123.0kg']);
  assert.deepEqual(s.push('+00120.5kg\n\n\nA0000000964000000123456\rLA 982 000001088420\n'),
    ['US,GS,+00120.5kg', 'A0000000964000000123456', 'LA 982 000001088420']);
  assert.deepEqual(s.push('  123.5 kg'), []);
  assert.deepEqual(s.flush(), ['123.5 kg']);
  assert.deepEqual(s.flush(), []);
});

test('line splitter: bytes, one at a time, STX/ETX frames and noise', () => {
  const s = new LineSplitter();
  const bytes = new TextEncoder().encode('\x02ST,NT,   412.5,kg\x03\x02US,NT,   400.0,kg\x03982000123456789\r\n');
  const got = [];
  for (const b of bytes) got.push(...s.push(new Uint8Array([b])));
  assert.deepEqual(got, ['ST,NT,   412.5,kg', 'US,NT,   400.0,kg', '982000123456789']);
  // A wrong baud rate makes a long run without an ending: dropped, and the next line is read.
  assert.deepEqual(s.push('x'.repeat(maxLine + 10)), []);
  assert.deepEqual(s.push('\n982000123456789\n'), ['982000123456789']);
});

// Dini Argeo 3590 "standard" protocol (§5.4), Tiger TI-02-P (§7.1), TMT TI-5700 (§11.3),
// Kern GAB-N (§12.1.3): status ST/US/OL/UL, gross/net, weight, unit.
test('indicator lines: status, mode, weight, unit', () => {
  assert.deepEqual(parseScaleLine('ST,GS,+00123.0kg'), { kind: 'weight', stable: true, value: 123, unit: 'kg', kg: 123, net: false });
  assert.deepEqual(parseScaleLine('US,GS, 0123.4,kg'), { kind: 'weight', stable: false, value: 123.4, unit: 'kg', kg: 123.4, net: false });
  assert.deepEqual(parseScaleLine('ST,NT,   412.5 kg'), { kind: 'weight', stable: true, value: 412.5, unit: 'kg', kg: 412.5, net: true });
  assert.deepEqual(parseScaleLine('ST,G, 905.0lb'), { kind: 'weight', stable: true, value: 905, unit: 'lb', kg: 905 * lbKg, net: false });
  assert.deepEqual(parseScaleLine('ST,GS,-    2.5,kg').value, -2.5);
  assert.deepEqual(parseScaleLine('OL,GS,'), { kind: 'overload' });
  assert.deepEqual(parseScaleLine('UL,GS,-9999.9kg'), { kind: 'underload' });
  assert.equal(parseScaleLine('ST,GS,+00123.0'), null, 'no unit: no weight');
});

// Ohaus 7000 series indicators (§5.2) and Explorer balances: weight, unit, "?" when unstable.
test('indicator lines: weight, unit, "?" when unstable', () => {
  assert.deepEqual(parseScaleLine('     412.5 kg'), { kind: 'weight', stable: true, value: 412.5, unit: 'kg', kg: 412.5, net: false });
  assert.equal(parseScaleLine('     412.5 kg ?').stable, false);
  assert.equal(parseScaleLine('   12.0 lb ? N').net, true);
  assert.equal(parseScaleLine('   12.0 LB').unit, 'lb');
  assert.equal(parseScaleLine('412.5'), null);
  assert.equal(parseScaleLine('982000123456789'), null);
});

test('only a stable weight above zero is taken', () => {
  assert.equal(takeable(parseScaleLine('ST,GS,+00412.5kg')), 412.5);
  assert.equal(takeable(parseScaleLine('US,GS,+00412.5kg')), null);
  assert.equal(takeable(parseScaleLine('ST,GS,+00000.0kg')), null);
  assert.equal(takeable(parseScaleLine('ST,GS,-00002.0kg')), null);
  assert.equal(takeable(parseScaleLine('OL,GS,')), null);
  assert.equal(takeable(null), null);
  assert.ok(Math.abs(takeable(parseScaleLine('ST,GS, 1000.0lb')) - 453.59237) < 1e-9);
});

test('a device line: an EID, a weight, a refused code or nothing', () => {
  assert.deepEqual(readLine('LA 982 000001088420'), { kind: 'eid', eid: '982000001088420', test: false });
  assert.deepEqual(readLine('ST,GS,+00412.5kg').kind, 'scale');
  assert.deepEqual(readLine('R00060000000000123456'), { kind: 'notAnimal', why: 'industrial', line: 'R00060000000000123456' });
  assert.deepEqual(readLine('hello'), { kind: 'unknown', line: 'hello' });
});

// The Allflex stick reader's serial protocol (ID-code string formats, appendix 1 of the
// Allflex RFID Panel and Portal Readers user manual V2.4): initial character, tag type,
// reserved field, data-block flag, code and national number, each optional but the last two,
// delimited by comma, semicolon, space, tab or nothing.
test('Allflex reader lines in their user-chosen formats', () => {
  for (const line of ['#A,00000,0,982,000123456789', 'XA;00000;0;982;000123456789', 'GA\t00000\t0\t982\t000123456789',
    'A000000982000123456789', '000000982000123456789', 'A982000123456789', '#982,000123456789', 'LA,982,000123456789', 'A 982 000123456789']) {
    assert.deepEqual(readLine(line), { kind: 'eid', eid: '982000123456789', test: false }, line);
  }
  assert.equal(allflexLine('#A,12345,1,982,000123456789'), 'A 12345 1 982 000123456789');
  assert.deepEqual(readLine('#R,00000,0,982,000123456789'), { kind: 'notAnimal', why: 'industrial', line: '#R,00000,0,982,000123456789' });
  // What ISO 11784 refuses stays refused in any layout.
  assert.equal(readLine('#A,00000,0,123,000123456789').why, 'country');
  assert.equal(readLine('#A,00000,0,982,999999999999').why, 'national');
  assert.equal(allflexLine('#A,982,00012345678'), null);
  assert.equal(allflexLine('ST,GS,+00412.5kg'), null);
});
