// The client's transport against a scripted peer (tests/fake-fetchd.js), not the real server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, ConnectionClosed, FetchdError } from '../index.js';
import { cycle, info } from './reference-cycle.js';

const FAKE = fileURLToPath(new URL('./fake-fetchd.js', import.meta.url));

function scriptEnv(steps) {
  const dir = mkdtempSync(join(tmpdir(), 'fetchd-js-'));
  const path = join(dir, 'script.json');
  writeFileSync(path, JSON.stringify(steps));
  return { ...process.env, FAKE_FETCHD_SCRIPT: path };
}

for (const framing of ['lsp', 'ndjson']) {
  test(`results, errors, notifications before the response, shutdown (${framing})`, async () => {
    const client = Client.spawn(FAKE, { framing });
    assert.deepEqual(await client.request('test/echo', { text: 'Zoë 🙂' }), { text: 'Zoë 🙂' });
    await assert.rejects(
      client.request('test/fail', { code: -32010, message: 'No such context', data: { kind: 'unknownContext', context: 'x' } }),
      (e) => e instanceof FetchdError && e.code === -32010 && e.kind === 'unknownContext' && e.data.context === 'x',
    );
    await assert.rejects(client.request('no/such'), (e) => e.code === -32601);
    const seen = [];
    client.on('notification', (method) => seen.push(method));
    client.on('controller/didChangeContent', (params) => seen.push(`event:${params.controller}`));
    const notes = [
      { method: 'controller/willChangeContent', params: { controller: 'c' } },
      { method: 'controller/didChangeContent', params: { controller: 'c' } },
    ];
    assert.deepEqual(await client.request('test/cycle', { notifications: notes, result: { ok: true } }), { ok: true });
    assert.deepEqual(seen, ['controller/willChangeContent', 'controller/didChangeContent', 'event:c']);
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => client.request('test/echo', { i })));
    assert.deepEqual(many.map((r) => r.i), [...Array(20).keys()]);
    assert.equal(await client.shutdown(), 0);
  });
}

test('batch: results in call order with per-call errors', async () => {
  const client = Client.spawn(FAKE);
  const batch = client.batch();
  const first = batch.call('test/echo', { a: 1 });
  const second = batch.call('test/fail', { code: -32020, message: 'Denied', data: { kind: 'deleteDenied' } });
  const third = batch.call('test/echo', { object: { id: 'Note/1' } }, 'object');
  await assert.rejects(batch.send(), FetchdError);
  assert.deepEqual(first.result, { a: 1 });
  assert.equal(second.error.kind, 'deleteDenied');
  assert.throws(() => second.result, FetchdError);
  assert.deepEqual(third.result, { id: 'Note/1' });
  assert.equal(await client.close(), 0);
});

function controllerScript() {
  const a = { id: 'Note/1', title: 'a', rank: 2 };
  const b = { id: 'Note/2', title: 'b', rank: 1 };
  const b2 = { ...b, rank: 3 };
  const wire = (notes) => notes.map(([method, params]) => ({ method, params }));
  const t0 = [['', []]];
  const t1 = [['', [b, a]]];
  const t2 = [['', [b2, a]]];
  return [
    { method: 'controller/create', result: { sections: [info('', [])], count: 0 } },
    { method: 'context/insert', notifications: wire(cycle('notes', t0, t1, new Set())), result: { object: a } },
    { method: 'context/update', notifications: wire(cycle('notes', t1, t2, new Set(['Note/2']))), result: { object: b2 } },
    { method: 'controller/sections', result: { sections: [info('', [b2, a])] } },
    { method: 'controller/rows', result: { objects: [b2, a] } },
  ];
}

test('a controller mirror follows cycles; delegate errors reject the call that caused them', async () => {
  const client = Client.spawn(FAKE, { env: scriptEnv(controllerScript()) });
  const events = [];
  const notes = await client.context().controller('notes', { entity: 'Note' }, { delegate: { didChangeObject: (c, o, p, type) => events.push([type, o.id]) } });
  assert.deepEqual(notes.mirror.ids(), [[]]);
  await client.context().insert('Note', { title: 'a' });
  assert.deepEqual(notes.mirror.ids(), [['Note/2', 'Note/1']]);
  notes.delegate.didChangeContent = () => {
    throw new Error('delegate failed');
  };
  await assert.rejects(client.context().update('Note/2', { rank: 3 }), /delegate failed/);
  assert.deepEqual(events, [['insert', 'Note/2'], ['insert', 'Note/1'], ['update', 'Note/2']]);
  assert.deepEqual(await notes.fetched(), [notes.mirror.sections[0].rows]);
  assert.equal(await client.close(), 0);
});

test('server exit rejects pending and later calls with ConnectionClosed', async () => {
  const client = Client.spawn(FAKE);
  client.notify('exit');
  await assert.rejects(client.request('test/echo', {}), ConnectionClosed);
  await assert.rejects(client.request('test/echo', {}), ConnectionClosed);
  assert.equal(await client.close(), 0);
});

test('attach to given streams', async () => {
  const child = spawn(FAKE, ['--framing', 'ndjson'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const client = new Client(child.stdout, child.stdin, { framing: 'ndjson' });
  assert.deepEqual(await client.request('test/echo', { attached: true }), { attached: true });
  await client.close();
  const code = await new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
  assert.equal(code, 0);
});

test('a failed create of a taken name keeps the first controller', async () => {
  const firstCycle = cycle('notes', [['', []]], [['', [{ id: 'Note/1' }]]], new Set());
  const client = Client.spawn(FAKE, {
    env: scriptEnv([
      { method: 'controller/create', result: { sections: [info('', [])], count: 0 } },
      { method: 'controller/create', error: { code: -32025, message: 'Name taken', data: { kind: 'duplicateName' } } },
      { method: 'context/insert', notifications: firstCycle.map(([method, params]) => ({ method, params })), result: { object: { id: 'Note/1' } } },
    ]),
  });
  const first = await client.context().controller('notes', { entity: 'Note' });
  await assert.rejects(client.context().controller('notes', { entity: 'Note' }), (e) => e.kind === 'duplicateName');
  await client.context().insert('Note', {});
  assert.deepEqual(first.mirror.ids(), [['Note/1']]);
  assert.equal(await client.close(), 0);
});
