// index.d.ts declares exactly the values index.js exports (no tsc on this machine, so at
// least the names cannot drift).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as api from '../index.js';

test('index.d.ts declares every runtime export and nothing more', () => {
  const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');
  const declared = [...dts.matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]).sort();
  assert.deepEqual(declared, Object.keys(api).sort());
});
