// Tests of the app's date fields' reading and writing of a day (web/app/src/datetext.ts), run
// by web/devices_test.go (TestDeviceParsers) with `node --test` against the compiled module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const dir = process.env.DEVICES_DIR;
if (!dir) throw new Error('DEVICES_DIR is not set: run through go test -run TestDeviceParsers ./web/');
const require = createRequire(join(dir, 'x.js'));
const { dayStyle, placeholder, formatDay, parseDay, daysIn } = require('../datetext.js');

const iso = dayStyle('en', 'iso'), isoFr = dayStyle('fr', 'iso');
const us = dayStyle('en', 'local'), fr = dayStyle('fr', 'local');

test('each setting writes a day in its own form, with a placeholder in its language', () => {
  assert.equal(placeholder(iso), 'YYYY-MM-DD');
  assert.equal(placeholder(isoFr), 'AAAA-MM-JJ');
  assert.equal(placeholder(us), 'MM/DD/YYYY');
  assert.equal(placeholder(fr), 'JJ/MM/AAAA');
  assert.equal(formatDay('2026-04-20', iso), '2026-04-20');
  assert.equal(formatDay('2026-04-20', us), '04/20/2026');
  assert.equal(formatDay('2026-04-20', fr), '20/04/2026');
  assert.equal(formatDay('', fr), '');
});

test('a day reads back as it was written, in every setting, over four years of days', () => {
  for (const s of [iso, isoFr, us, fr]) {
    for (let t = Date.UTC(2023, 0, 1); t <= Date.UTC(2026, 11, 31); t += 86400000) {
      const day = new Date(t).toISOString().slice(0, 10);
      assert.equal(parseDay(formatDay(day, s), s), day);
      // Eight digits, as a numeric keypad types them, are the style's order.
      assert.equal(parseDay(formatDay(day, s).replace(/\D/g, ''), s), day);
    }
  }
});

test('what a farmer types: other separators, one-digit parts, the year first in any setting', () => {
  assert.equal(parseDay('20.4.2026', fr), '2026-04-20');
  assert.equal(parseDay(' 20 / 04 / 2026 ', fr), '2026-04-20');
  assert.equal(parseDay('4/20/2026', us), '2026-04-20');
  assert.equal(parseDay('2026-04-20', fr), '2026-04-20');
  assert.equal(parseDay('2026/4/2', us), '2026-04-02');
  assert.equal(parseDay('', fr), '');
  assert.equal(parseDay('   ', iso), '');
});

test('what is not a day of the calendar is refused, never guessed', () => {
  for (const [text, s] of [
    ['31/02/2026', fr], ['29/02/2025', fr], ['02/29/2025', us], ['13/01/2026', us], ['00/01/2026', fr],
    ['20/04/26', fr], ['2026-04', iso], ['2026-04-20-1', iso], ['20260431', iso], ['2026-4-20x', iso],
    ['abc', iso], ['0999-01-01', iso], ['20/04/02026', fr], ['1/2/3', us],
  ]) {
    assert.equal(parseDay(text, s), null, `${text} read as a day`);
  }
  // The leap day where the Gregorian calendar has one.
  assert.equal(parseDay('29/02/2024', fr), '2024-02-29');
  assert.equal(parseDay('29/02/2000', fr), '2000-02-29');
  assert.equal(parseDay('29/02/1900', fr), null);
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((m) => daysIn(2026, m)), [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);
});
