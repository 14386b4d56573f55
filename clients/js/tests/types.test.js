// index.d.ts as shipped: generated from clients/openrpc.json by tools/gen-types.js, declaring
// exactly what index.js exports, and accepted by `tsc --strict` with a usage file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import * as api from '../index.js';
import { DEFAULT_DOC, TEMPLATE, generate } from '../tools/gen-types.js';
import { findTsc, runTsc } from './tsc.js';

const dts = () => readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');

test('index.d.ts declares every runtime export and nothing more', () => {
  const declared = [...dts().matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]).sort();
  assert.deepEqual(declared, Object.keys(api).sort());
});

test('index.d.ts is what node clients/js/tools/gen-types.js generates from clients/openrpc.json', () => {
  const expected = generate(JSON.parse(readFileSync(DEFAULT_DOC, 'utf8')), readFileSync(TEMPLATE, 'utf8'));
  assert.ok(dts() === expected, 'index.d.ts is out of date: run node clients/js/tools/gen-types.js');
});

test('tsc --noEmit --strict accepts index.d.ts and a usage file', () => {
  const tsc = findTsc();
  const { status, output } = runTsc(tsc, fileURLToPath(new URL('typecheck/tsconfig.json', import.meta.url)));
  assert.equal(status, 0, output);
});
