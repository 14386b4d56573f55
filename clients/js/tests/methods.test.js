// The client covers every request of the OpenRPC document (every method with a result) with
// the same parameter names, through the method table METHODS (src/calls.js explains the
// mapping to positional arguments). Also checks the table against index.d.ts and index.js.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as api from '../index.js';
import { wire, wireParams } from '../src/calls.js';
import { DEFAULT_DOC } from '../tools/gen-types.js';

const { METHODS } = api;

/** Parameter names of `Class.method` as index.d.ts declares them. */
function declaredParams(dts, className, method) {
  const start = dts.search(new RegExp(`^export class ${className}\\b[^\\n]*\\{$`, 'm'));
  assert.ok(start >= 0, `index.d.ts declares no class ${className}`);
  const body = dts.slice(start, dts.indexOf('\n}\n', start));
  const at = body.search(new RegExp(`^ {2}(?:static )?${method}(?:<[^\\n]*>)?\\(`, 'm'));
  assert.ok(at >= 0, `index.d.ts declares no ${className}.${method}`);
  let i = body.indexOf('(', at) + 1;
  let depth = 0;
  let current = '';
  const params = [];
  for (; depth >= 0; i++) {
    const c = body[i];
    if ('([{<'.includes(c)) depth++;
    else if (')]}'.includes(c) || (c === '>' && body[i - 1] !== '=')) depth--;
    if (depth < 0 || (depth === 0 && c === ',')) {
      if (current.trim()) params.push(current.trim().match(/^(?:\.\.\.)?(\w+)/)[1]);
      current = '';
    } else current += c;
  }
  return params;
}

test('methods: every request of the document is in the table with the same params', () => {
  const doc = JSON.parse(readFileSync(DEFAULT_DOC, 'utf8'));
  const requests = doc.methods.filter((m) => 'result' in m);
  assert.ok(requests.length > 20, `only ${requests.length} requests in the document`);
  for (const method of requests) {
    const entry = METHODS[method.name];
    assert.ok(entry, `the JS client has no method for ${method.name} (add it to METHODS in src/calls.js)`);
    const names = wireParams(entry);
    assert.equal(new Set(names).size, names.length, `${method.name}: a param listed twice`);
    const documented = (method.params ?? []).map((p) => p.name);
    assert.deepEqual([...names].sort(), [...documented].sort(), `${method.name}: the client's params differ from the document's`);
    for (const p of method.params ?? []) {
      if (p.required) assert.ok(!(entry.options ?? []).includes(p.name), `${method.name}: required ${p.name} is in the options object`);
    }
  }
  const stale = Object.keys(METHODS).filter((name) => !requests.some((m) => m.name === name));
  assert.deepEqual(stale, [], 'methods in the table that the document does not list as requests');
});

test('methods: each table entry is a method of the runtime class and of index.d.ts, same argument names', () => {
  const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');
  assert.ok(Object.keys(METHODS).length > 20);
  for (const [name, entry] of Object.entries(METHODS)) {
    const [className, method] = entry.api.split('.');
    assert.equal(typeof api[className]?.prototype?.[method], 'function', `${name}: index.js has no ${entry.api}`);
    const expected = [...entry.args, ...(entry.options?.length ? ['options'] : [])];
    assert.deepEqual(declaredParams(dts, className, method), expected, `${name}: ${entry.api} in index.d.ts`);
    if (entry.handle) assert.equal(entry.handle, className.toLowerCase(), `${name}: a ${className} supplies its own name`);
  }
});

test('methods: the declared-params reader handles nested types', () => {
  const dts = 'export class X {\n  f(a: Array<{ b: (c: number) => void }>, d?: Omit<P, \'e\' | \'f\'>): Promise<Map<string, number>>;\n}\n';
  assert.deepEqual(declaredParams(dts, 'X', 'f'), ['a', 'd']);
});

test('methods: wire() sends the table params only, leaving out undefined and null', () => {
  assert.deepEqual(wire('context/get', { context: 'main', ids: ['A/1'], keys: undefined }), ['context/get', { context: 'main', ids: ['A/1'] }]);
  assert.deepEqual(wire('controller/create', { context: 'main', name: 'c', request: { entity: 'A' }, notify: null }), [
    'controller/create',
    { context: 'main', name: 'c', request: { entity: 'A' } },
  ]);
  assert.deepEqual(wire('shutdown'), ['shutdown', undefined]);
  assert.deepEqual(wire('server/echo', { value: 0 }), ['server/echo', { value: 0 }]);
  assert.throws(() => wire('context/fetch', { context: 'main', request: {}, limit: 3 }), /context\/fetch has no parameter "limit"/);
  assert.throws(() => wire('context/explode'), /not in the client's method table/);
  assert.throws(() => wire('toString'), /not in the client's method table/);
});
