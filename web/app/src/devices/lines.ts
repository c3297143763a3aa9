// Lines out of a byte stream. A serial port or a Bluetooth notification hands over whatever
// bytes have arrived: half a line, several lines, a line ending split between two chunks.
// Readers end a line with CR, LF or CR LF (Allflex and Datamars readers: CR LF by default, CR
// on some settings); weigh indicators with CR LF, some framing a line with STX (0x02) and ETX
// (0x03). Pure: no DOM, no I/O.

/** The longest line kept: anything longer is noise (a wrong baud rate), dropped whole. */
export const maxLine = 256;

export class LineSplitter {
  private buf = '';
  private lastCR = false;
  private dropping = false;
  private decoder = new TextDecoder('utf-8');

  /** push adds a chunk (bytes or text) and answers the complete lines it ends (at CR, LF,
   * CR LF or ETX), without their ending, other control characters (STX, NUL) removed, empty lines left out. */
  push(chunk: Uint8Array | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const out: string[] = [];
    for (const ch of text) {
      if (ch === '\n' && this.lastCR) { this.lastCR = false; continue; } // the LF of a CR LF
      this.lastCR = ch === '\r';
      if (ch === '\r' || ch === '\n' || ch === '\x03') { // ETX ends a framed line
        if (!this.dropping && this.buf.trim() !== '') out.push(this.buf.trim());
        this.buf = '';
        this.dropping = false;
        continue;
      }
      if (ch < ' ' && ch !== '\t') continue; // STX and other controls frame, not content
      if (this.dropping) continue;
      this.buf += ch;
      if (this.buf.length > maxLine) { this.buf = ''; this.dropping = true; }
    }
    return out;
  }

  /** flush answers the line in progress, if any (the stream ended without an ending). */
  flush(): string[] {
    const rest = this.dropping ? '' : this.buf.trim();
    this.buf = '';
    this.dropping = false;
    this.lastCR = false;
    return rest ? [rest] : [];
  }
}
