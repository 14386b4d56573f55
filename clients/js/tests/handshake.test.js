// initialize and the protocol version check, against the scripted peer (tests/fake-fetchd.js),
// whose initialize answers FAKE_FETCHD_PROTOCOL and which logs what reaches it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLIENT_INFO, Client, FetchdError, PROTOCOL_VERSION, ProtocolVersionMismatch } from '../index.js';

const FAKE = fileURLToPath(new URL('./fake-fetchd.js', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * A fake peer speaking `protocol` that logs every message it receives: `spawn(options)` starts
 * a client on it (killed after the test, should an assertion stop it early), `received()` reads
 * the log.
 */
function peer(t, protocol) {
  const dir = mkdtempSync(join(tmpdir(), 'fetchd-js-handshake-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'received.jsonl');
  const env = { ...process.env, FAKE_FETCHD_LOG: log };
  if (protocol !== undefined) env.FAKE_FETCHD_PROTOCOL = String(protocol);
  const received = () => {
    let text = '';
    try {
      text = readFileSync(log, 'utf8');
    } catch {}
    return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
  };
  const spawn = (options = {}) => {
    const client = Client.spawn(FAKE, { env, ...options });
    t.after(() => client.process.exitCode === null && client.process.kill());
    return client;
  };
  return { spawn, received };
}

const mismatch = (served) => (e) => {
  assert.ok(e instanceof ProtocolVersionMismatch, `${e}`);
  assert.ok(e instanceof FetchdError);
  assert.equal(e.kind, 'protocolVersionMismatch');
  assert.equal(e.code, 0);
  assert.equal(e.serverProtocolVersion, served);
  assert.equal(e.clientProtocolVersion, PROTOCOL_VERSION);
  const client = `this client (fetchd-client ${PACKAGE.version}) speaks protocol version 1. Use a fetchd and a fetchd-client of the same release.`;
  const expected =
    served === null
      ? `fetchd 0.0.0-fake at ${FAKE} does not say which protocol version it speaks (its initialize result has no protocolVersion); ${client}`
      : `fetchd 0.0.0-fake at ${FAKE} speaks protocol version ${served}; ${client}`;
  assert.equal(e.message, expected);
  return true;
};

test('the package says its own name and version, from package.json, and protocol version 1', () => {
  assert.deepEqual({ ...CLIENT_INFO }, { name: PACKAGE.name, version: PACKAGE.version });
  assert.ok(Object.isFrozen(CLIENT_INFO));
  assert.equal(PROTOCOL_VERSION, 1);
});

test('spawn sends initialize first; a matching protocol version releases what waited for it', async (t) => {
  const { spawn, received } = peer(t);
  const client = spawn();
  const early = client.request('test/echo', { early: true }); // made before the answer
  const info = await client.ready;
  assert.equal(info.protocolVersion, PROTOCOL_VERSION);
  assert.deepEqual(await early, { early: true });
  assert.equal(await client.initialize(), info, 'a second initialize() is the first one');
  assert.equal(await client.close(), 0);
  const messages = received();
  assert.deepEqual(messages.map((m) => m.method), ['initialize', 'test/echo']);
  assert.deepEqual(messages[0].params, { clientInfo: { ...CLIENT_INFO } });
});

test('spawn(…, {clientInfo}) sends that clientInfo', async (t) => {
  const { spawn, received } = peer(t);
  const client = spawn({ framing: 'ndjson', clientInfo: { name: 'node-test', version: '1' } });
  assert.equal((await client.ready).protocolVersion, 1);
  assert.equal(await client.close(), 0);
  assert.deepEqual(received()[0].params, { clientInfo: { name: 'node-test', version: '1' } });
});

test('another protocol version fails ready and every request, and fetchd never sees them', async (t) => {
  const { spawn, received } = peer(t, 2);
  const client = spawn();
  const early = client.request('test/echo', {});
  await assert.rejects(client.ready, mismatch(2));
  await assert.rejects(early, mismatch(2));
  await assert.rejects(client.request('test/echo', {}), mismatch(2));
  await assert.rejects(client.context().insert('Note', {}), mismatch(2));
  await assert.rejects(client.initialize(), mismatch(2));
  assert.throws(() => client.notify('exit'), mismatch(2));
  assert.equal(await client.exited, 0, 'its input was ended, so the peer exits without close()');
  assert.equal(await client.close(), 0);
  assert.deepEqual(received().map((m) => m.method), ['initialize']);
});

test('an initialize result without protocolVersion is a mismatch too', async (t) => {
  const { spawn } = peer(t, 'none');
  const client = spawn();
  await assert.rejects(client.ready, mismatch(null));
  await assert.rejects(client.ping(), mismatch(null));
  assert.equal(await client.close(), 0);
});

test('{initialize: false}: nothing is sent first; an explicit initialize() checks the version', async (t) => {
  const { spawn, received } = peer(t, 2);
  const client = spawn({ initialize: false });
  assert.equal(await client.ready, null);
  const initialized = client.initialize({ name: 'node-test', version: '1' });
  const later = client.request('test/echo', {}); // held behind that initialize
  await assert.rejects(initialized, mismatch(2));
  await assert.rejects(later, mismatch(2));
  await assert.rejects(client.request('test/echo', {}), mismatch(2));
  assert.equal(await client.close(), 0);
  assert.deepEqual(received().map((m) => m.method), ['initialize']);
});

test('{initialize: false}: an explicit initialize() of the same version resolves and the client goes on', async (t) => {
  const { spawn, received } = peer(t);
  const client = spawn({ initialize: false });
  const info = await client.initialize({ name: 'node-test', version: '1' });
  assert.equal(info.protocolVersion, 1);
  assert.deepEqual(await client.request('test/echo', { after: true }), { after: true });
  assert.equal(await client.close(), 0);
  assert.deepEqual(received()[0], { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'node-test', version: '1' } } });
});

test('an initialize fetchd refuses (not first) leaves the client working and may be sent again', async (t) => {
  const { spawn } = peer(t);
  const client = spawn({ initialize: false });
  assert.deepEqual(await client.request('test/echo', { first: true }), { first: true });
  await assert.rejects(client.initialize(), (e) => e instanceof FetchdError && !(e instanceof ProtocolVersionMismatch) && e.kind === 'initializeNotFirst');
  assert.deepEqual(await client.request('test/echo', { still: true }), { still: true });
  await assert.rejects(client.initialize(), (e) => e.kind === 'initializeNotFirst', 'sent again, not the first promise');
  assert.equal(await client.close(), 0);
});

test('close() before the initialize answer still sends what waited, then the end of input', async (t) => {
  const { spawn, received } = peer(t);
  const client = spawn();
  const early = client.request('test/echo', { early: true });
  const closed = client.close();
  assert.deepEqual(await early, { early: true });
  assert.equal(await closed, 0);
  assert.deepEqual(received().map((m) => m.method), ['initialize', 'test/echo']);
});
