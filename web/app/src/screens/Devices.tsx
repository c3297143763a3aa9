// The crush's devices: a reader and a scale head, each connected by cable (Web Serial) or by
// Bluetooth (Web Bluetooth, the Nordic UART Service), offered only where the browser has the
// API. This panel is small and part of the weigh screen (and, the reader only, of Treat's and
// Move's scanned list); the connections and the protocol parsers (../devices) are a chunk of
// their own, fetched at the first Connect.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { t, type Key } from '../i18n';
import type { Connection, DeviceState, Link } from '../devices/connect';
import type { DeviceLine } from '../devices/read';

const connections = () => import('../devices/connect');

/** The baud rates offered; readers and indicators are commonly set to 9600 8N1. */
const bauds = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

type Role = 'reader' | 'scale';

function api(): { serial: boolean; bluetooth: boolean } {
  return { serial: 'serial' in navigator, bluetooth: 'bluetooth' in navigator };
}

// The connections outlive the screen: a farmer who goes to another screen and comes back
// finds the reader and the scale still connected. Lines go to the screen whose panel is shown
// (the weigh screen, or a scanned list on Treat or Move) and are dropped elsewhere; a reload
// or a sign-out (which reloads the page) ends every connection.
interface Live { conn: Connection | null; state: DeviceState }
const live: Record<Role, Live> = { reader: { conn: null, state: { state: 'disconnected' } }, scale: { conn: null, state: { state: 'disconnected' } } };
let sink: ((l: DeviceLine) => void) | null = null;
const watchers = new Set<() => void>();
function update(role: Role, l: Partial<Live>) {
  live[role] = { ...live[role], ...l };
  watchers.forEach((f) => f());
}

/** Devices offers to connect a reader and a scale (or the roles given); every line any
 * connected device sends goes to onLine. */
export function Devices({ onLine, roles = ['reader', 'scale'] }: { onLine: (l: DeviceLine) => void; roles?: Role[] }) {
  const has = api();
  const [baud, setBaud] = useState(9600);
  const latest = useRef(onLine);
  latest.current = onLine;
  const [, redraw] = useState(0);
  // Lines go to this screen from its first drawing on: an effect runs only after the page is
  // painted, and a line that came in between would be lost.
  const mine = useRef((l: DeviceLine) => latest.current(l)).current;
  sink = mine;
  useLayoutEffect(() => {
    sink = mine;
    const f = () => redraw((n) => n + 1);
    watchers.add(f);
    return () => { if (sink === mine) sink = null; watchers.delete(f); };
  }, []);
  if (!has.serial && !has.bluetooth) return <p class="muted" id="devices-none">{t('devicesNone')}</p>;
  return (
    <section class="card devices" aria-labelledby="devices-title">
      <h2 id="devices-title">{roles.length === 1 ? t(roles[0] as Key) : t('devices')}</h2>
      {roles.map((role) => <Device key={role} role={role} has={has} baud={baud} />)}
      {has.serial && <label>{t('baudRate')}<select id="device-baud" value={baud} onChange={(e) => setBaud(Number(e.currentTarget.value))}>
        {bauds.map((b) => <option key={b} value={b}>{b}</option>)}
      </select></label>}
    </section>
  );
}

function stateText(s: DeviceState): string {
  switch (s.state) {
    case 'connecting': return t('dev_connecting');
    case 'connected': return `${t('dev_connected')} (${s.name})`;
    case 'error': return `${t('dev_error')}: ${s.message}`;
  }
  return t('dev_disconnected');
}

async function connect(role: Role, link: Link, baud: number) {
  try {
    const m = await connections();
    const handlers = {
      line: (l: DeviceLine) => sink?.(l),
      state: (s: DeviceState) => update(role, s.state === 'disconnected' || s.state === 'error' ? { state: s, conn: null } : { state: s }),
    };
    const c = link === 'serial' ? await m.connectSerial(baud, handlers) : await m.connectBluetooth(handlers);
    if (c) update(role, { conn: c });
  } catch (e) {
    update(role, { state: { state: 'error', message: e instanceof Error ? e.message : String(e) } });
  }
}

async function disconnect(role: Role) {
  const c = live[role].conn;
  update(role, { conn: null });
  await c?.close();
}

function Device({ role, has, baud }: { role: Role; has: { serial: boolean; bluetooth: boolean }; baud: number }) {
  const { state } = live[role];
  const on = state.state === 'connected' || state.state === 'connecting';
  const name = t(role as Key);
  return (
    <div class="device" role="group" aria-label={name}>
      <p role="status" id={`device-${role}-status`}><strong>{name}</strong>: {stateText(state)}</p>
      {on ? (
        <button type="button" class="secondary" id={`device-${role}-disconnect`} onClick={() => void disconnect(role)}>{t('disconnect')}</button>
      ) : (
        <>
          {has.serial && <button type="button" class="secondary" id={`device-${role}-serial`} onClick={() => void connect(role, 'serial', baud)}>{t('connectSerial')}</button>}
          {has.bluetooth && <button type="button" class="secondary" id={`device-${role}-bluetooth`} onClick={() => void connect(role, 'bluetooth', baud)}>{t('connectBluetooth')}</button>}
        </>
      )}
    </div>
  );
}
