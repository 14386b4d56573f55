import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FetchdError, NDJSON, ProtocolCore, ProtocolViolation } from '../index.js';

const parse = (data) => JSON.parse(data.toString());

test('requests are numbered; params are omitted when absent; a batch is one array', () => {
  const core = new ProtocolCore(NDJSON);
  const a = core.request('initialize', { clientInfo: { name: 't' } });
  const b = core.request('shutdown');
  assert.deepEqual([a.id, b.id], [1, 2]);
  assert.deepEqual(parse(a.data), { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 't' } } });
  assert.deepEqual(parse(b.data), { jsonrpc: '2.0', id: 2, method: 'shutdown' });
  assert.deepEqual(parse(core.notification('exit')), { jsonrpc: '2.0', method: 'exit' });
  const batch = core.batch([['a', { x: 1 }], ['b']]);
  assert.deepEqual(batch.ids, [3, 4]);
  assert.deepEqual(parse(batch.data).map((m) => m.method), ['a', 'b']);
  assert.throws(() => core.batch([]));
  assert.throws(() => core.request('context/insert', { values: { x: NaN } }), RangeError);
});

test('feed classifies notifications, results, errors and batch responses', () => {
  const core = new ProtocolCore(NDJSON);
  const out = core.feed(
    Buffer.from(
      '{"jsonrpc":"2.0","method":"controller/willChangeContent","params":{"controller":"c"}}\n' +
        '{"jsonrpc":"2.0","id":1,"result":{"object":{"id":"Note/1"}}}\n' +
        '[{"jsonrpc":"2.0","id":2,"result":null},{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"No such object","data":{"kind":"unknownObject"}}}]\n',
    ),
  );
  assert.deepEqual(out[0], { kind: 'notification', method: 'controller/willChangeContent', params: { controller: 'c' } });
  assert.deepEqual(out[1], { kind: 'response', id: 1, result: { object: { id: 'Note/1' } } });
  assert.deepEqual(out[2], { kind: 'response', id: 2, result: null });
  assert.ok(out[3].error instanceof FetchdError);
  assert.equal(out[3].error.code, -32001);
  assert.equal(out[3].error.kind, 'unknownObject');
});

for (const line of [
  'not json',
  '{"id":1,"result":1}',
  '{"jsonrpc":"2.0","id":1}',
  '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}',
  '{"jsonrpc":"2.0","method":"x","params":[1]}',
  '{"jsonrpc":"2.0","id":5,"method":"x"}',
  '[]',
]) {
  test(`feed refuses ${line}`, () => {
    assert.throws(() => new ProtocolCore(NDJSON).feed(Buffer.from(line + '\n')), ProtocolViolation);
  });
}

test('dispatch goes to listeners, then to the controller named in params', () => {
  const core = new ProtocolCore();
  const seen = [];
  core.register('a', { handleNotification: (m) => seen.push(['a', m]) });
  core.addListener((m, p) => seen.push(['listener', p.controller]));
  core.dispatch({ method: 'controller/didChangeContent', params: { controller: 'a' } });
  core.dispatch({ method: 'controller/didChangeContent', params: { controller: 'zz' } });
  core.unregister('a');
  core.dispatch({ method: 'controller/didChangeContent', params: { controller: 'a' } });
  assert.deepEqual(seen, [['listener', 'a'], ['a', 'controller/didChangeContent'], ['listener', 'zz'], ['listener', 'a']]);
});
