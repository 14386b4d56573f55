// Message framing on a byte stream: LSP (Content-Length headers) or NDJSON (one per line).
// Decoders are incremental: feed them whatever arrived, they return every complete body.
import { ProtocolViolation } from './errors.js';

export const LSP = 'lsp';
export const NDJSON = 'ndjson';
export const FRAMINGS = [LSP, NDJSON];

const HEADER_END = Buffer.from('\r\n\r\n');

/** Frame one message body (a Buffer of UTF-8 JSON). */
export function encode(body, framing) {
  if (framing === LSP) {
    return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
  }
  if (framing === NDJSON) {
    if (body.includes(0x0a)) throw new Error('an NDJSON message body cannot contain a newline');
    return Buffer.concat([body, Buffer.from('\n')]);
  }
  throw new Error(`unknown framing ${JSON.stringify(framing)}; expected one of ${FRAMINGS.join(', ')}`);
}

export class LSPDecoder {
  constructor() {
    this.buffer = Buffer.alloc(0);
    this.length = null;
  }

  feed(data) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : Buffer.from(data);
    const out = [];
    for (;;) {
      if (this.length === null) {
        const end = this.buffer.indexOf(HEADER_END);
        if (end < 0) return out;
        const header = this.buffer.subarray(0, end).toString('latin1');
        this.buffer = this.buffer.subarray(end + 4);
        this.length = contentLength(header);
      }
      if (this.buffer.length < this.length) return out;
      out.push(Buffer.from(this.buffer.subarray(0, this.length)));
      this.buffer = this.buffer.subarray(this.length);
      this.length = null;
    }
  }

  get pending() {
    return this.buffer.length;
  }
}

function contentLength(header) {
  for (const line of header.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    if (/^\d+$/.test(value)) return Number(value);
    break;
  }
  throw new ProtocolViolation(`LSP header without a valid Content-Length: ${JSON.stringify(header)}`);
}

export class NDJSONDecoder {
  constructor() {
    this.buffer = Buffer.alloc(0);
  }

  feed(data) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : Buffer.from(data);
    const out = [];
    for (;;) {
      const end = this.buffer.indexOf(0x0a);
      if (end < 0) return out;
      let line = this.buffer.subarray(0, end);
      this.buffer = this.buffer.subarray(end + 1);
      if (line.length && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
      if (line.toString('utf8').trim()) out.push(Buffer.from(line));
    }
  }

  get pending() {
    return this.buffer.length;
  }
}

export function decoder(framing) {
  if (framing === LSP) return new LSPDecoder();
  if (framing === NDJSON) return new NDJSONDecoder();
  throw new Error(`unknown framing ${JSON.stringify(framing)}; expected one of ${FRAMINGS.join(', ')}`);
}
