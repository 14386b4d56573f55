import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LSPDecoder, NDJSONDecoder, ProtocolViolation, encode } from '../index.js';

test('LSP writes exactly one Content-Length header counting UTF-8 bytes', () => {
  const body = Buffer.from('{"n":"Zoë 🙂"}');
  const framed = encode(body, 'lsp');
  assert.equal(framed.subarray(0, framed.length - body.length).toString(), `Content-Length: ${body.length}\r\n\r\n`);
  assert.deepEqual(new LSPDecoder().feed(framed), [body]);
});

test('LSP decoder survives byte-by-byte reads and many messages per read', () => {
  const stream = Buffer.concat([encode(Buffer.from('{"a":1}'), 'lsp'), encode(Buffer.from('[2]'), 'lsp')]);
  const decoder = new LSPDecoder();
  const out = [];
  for (let i = 0; i < stream.length; i++) out.push(...decoder.feed(stream.subarray(i, i + 1)));
  assert.deepEqual(out.map(String), ['{"a":1}', '[2]']);
  assert.deepEqual(new LSPDecoder().feed(Buffer.concat([stream, stream])).map(String), ['{"a":1}', '[2]', '{"a":1}', '[2]']);
});

test('LSP decoder accepts other headers in any case and rejects a missing length', () => {
  const ok = Buffer.from('Content-Type: application/vscode-jsonrpc\r\ncontent-LENGTH: 2\r\n\r\n{}');
  assert.deepEqual(new LSPDecoder().feed(ok).map(String), ['{}']);
  assert.throws(() => new LSPDecoder().feed(Buffer.from('X: 1\r\n\r\n{}')), ProtocolViolation);
});

test('NDJSON skips blank lines, drops CR, keeps partial lines', () => {
  const decoder = new NDJSONDecoder();
  assert.deepEqual(decoder.feed(Buffer.from('{"a":1}\n\n\r\n{"b"')).map(String), ['{"a":1}']);
  assert.deepEqual(decoder.feed(Buffer.from(':2}\r\n')).map(String), ['{"b":2}']);
  assert.throws(() => encode(Buffer.from('{\n}'), 'ndjson'));
  assert.throws(() => encode(Buffer.from('{}'), 'xml'));
});
