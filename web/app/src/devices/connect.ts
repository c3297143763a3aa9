// Connections to readers and scale heads from the browser: Web Serial (a USB or RS-232 cable,
// or a Bluetooth Classic serial port the system has paired) and Web Bluetooth (a Bluetooth
// Low Energy device with the Nordic UART Service, the serial-over-BLE service many readers,
// scale heads and serial adapters expose). Either way the bytes go through LineSplitter and
// every line through readLine, so a reader and a scale head may share one port. This module
// and the parsers are a chunk of their own, loaded when the farmer connects a device: the
// register and the animal page never load them.
import { LineSplitter } from './lines';
import { readLine, type DeviceLine } from './read';

/** The Nordic UART Service: bytes from the device arrive as notifications of its TX
 * characteristic (nRF Connect SDK, "Nordic UART Service (NUS)"). */
export const nus = {
  service: '6e400001-b5a3-f393-e0a9-e50e24dcca9e',
  tx: '6e400003-b5a3-f393-e0a9-e50e24dcca9e',
};

export type Link = 'serial' | 'bluetooth';

export type DeviceState =
  | { state: 'connecting' }
  | { state: 'connected'; name: string }
  | { state: 'disconnected' }
  | { state: 'error'; message: string };

export interface Connection { close(): Promise<void> }

export interface Handlers {
  line: (l: DeviceLine) => void;
  state: (s: DeviceState) => void;
}

// The parts of Web Serial and Web Bluetooth used here (TypeScript's DOM library has neither).
interface SerialPortLike {
  open(o: { baudRate: number }): Promise<void>;
  close(): Promise<void>;
  readable: ReadableStream<Uint8Array> | null;
  getInfo?(): { usbVendorId?: number; usbProductId?: number };
  addEventListener(t: 'disconnect', f: () => void): void;
}
interface SerialLike { requestPort(o?: object): Promise<SerialPortLike> }
interface CharacteristicLike extends EventTarget {
  value?: DataView;
  startNotifications(): Promise<CharacteristicLike>;
}
interface GattLike {
  connected: boolean;
  connect(): Promise<GattLike>;
  disconnect(): void;
  getPrimaryService(uuid: string): Promise<{ getCharacteristic(uuid: string): Promise<CharacteristicLike> }>;
}
interface BluetoothDeviceLike extends EventTarget { name?: string; gatt?: GattLike }
interface BluetoothLike { requestDevice(o: object): Promise<BluetoothDeviceLike> }

const nav = navigator as Navigator & { serial?: SerialLike; bluetooth?: BluetoothLike };

/** available answers which links this browser offers. */
export function available(): Link[] {
  return [...(nav.serial ? ['serial' as const] : []), ...(nav.bluetooth ? ['bluetooth' as const] : [])];
}

function feed(split: LineSplitter, h: Handlers, chunk: Uint8Array) {
  for (const line of split.push(chunk)) h.line(readLine(line));
}

function why(e: unknown): string { return e instanceof Error ? e.message : String(e); }

/** connectSerial asks the user for a port, opens it at baudRate and reads it until closed. A
 * refused choice (the user closed the picker) answers null. */
export async function connectSerial(baudRate: number, h: Handlers): Promise<Connection | null> {
  if (!nav.serial) throw new Error('Web Serial is not available');
  let port: SerialPortLike;
  try {
    port = await nav.serial.requestPort();
  } catch (e) {
    if (e instanceof DOMException && e.name === 'NotFoundError') return null; // no port chosen
    throw e;
  }
  h.state({ state: 'connecting' });
  await port.open({ baudRate });
  const info = port.getInfo?.() ?? {};
  const name = info.usbVendorId !== undefined
    ? `USB ${info.usbVendorId.toString(16).padStart(4, '0')}:${(info.usbProductId ?? 0).toString(16).padStart(4, '0')} · ${baudRate}`
    : `${baudRate}`;
  let closing = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const split = new LineSplitter();
  const done = (async () => {
    // A read error (a framing or parity error, a buffer overrun) ends one reader; the port
    // stays open and a new reader goes on, as the Web Serial specification's example does.
    let ended = false;
    while (port.readable && !closing && !ended) {
      reader = port.readable.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) { ended = true; break; }
          if (value) feed(split, h, value);
        }
      } catch (e) {
        if (!closing) h.state({ state: 'error', message: why(e) });
      } finally {
        reader.releaseLock();
      }
    }
    for (const line of split.flush()) h.line(readLine(line));
    if (!closing) h.state({ state: 'disconnected' });
  })();
  port.addEventListener('disconnect', () => { if (!closing) h.state({ state: 'disconnected' }); });
  h.state({ state: 'connected', name });
  return {
    async close() {
      closing = true;
      try { await reader?.cancel(); } catch { /* already gone */ }
      await done;
      try { await port.close(); } catch { /* unplugged */ }
      h.state({ state: 'disconnected' });
    },
  };
}

/** connectBluetooth asks the user for a device with the Nordic UART Service and reads its
 * notifications until closed. A refused choice answers null. */
export async function connectBluetooth(h: Handlers): Promise<Connection | null> {
  if (!nav.bluetooth) throw new Error('Web Bluetooth is not available');
  let device: BluetoothDeviceLike;
  try {
    // Not every device advertises the service, so any may be chosen; the service must be
    // named to be used.
    device = await nav.bluetooth.requestDevice({ acceptAllDevices: true, optionalServices: [nus.service] });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'NotFoundError') return null;
    throw e;
  }
  if (!device.gatt) throw new Error('the device has no GATT server');
  h.state({ state: 'connecting' });
  let closing = false;
  const split = new LineSplitter();
  device.addEventListener('gattserverdisconnected', () => {
    for (const line of split.flush()) h.line(readLine(line));
    if (!closing) h.state({ state: 'disconnected' });
  });
  const server = await device.gatt.connect();
  const tx = await (await server.getPrimaryService(nus.service)).getCharacteristic(nus.tx);
  tx.addEventListener('characteristicvaluechanged', (ev) => {
    const v = (ev.target as CharacteristicLike).value;
    if (v) feed(split, h, new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  });
  await tx.startNotifications();
  h.state({ state: 'connected', name: device.name || 'Bluetooth' });
  return {
    async close() {
      closing = true;
      if (device.gatt?.connected) device.gatt.disconnect();
      h.state({ state: 'disconnected' });
    },
  };
}
