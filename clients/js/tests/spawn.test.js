// Where Client.spawn() finds fetchd, and what a binary that cannot be started does: it rejects
// the client's calls (it used to end node with an unhandled 'error' event).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, ConnectionClosed } from '../index.js';
import { fetchdBinary } from './helpers.js';

const JS_ROOT = fileURLToPath(new URL('..', import.meta.url));

function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'fetchd-js-spawn-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const cannotStart = (path, code) => (e) => {
  assert.ok(e instanceof ConnectionClosed, `${e}`);
  assert.ok(e.message.startsWith(`could not start fetchd at ${path}: `), e.message);
  assert.equal(e.cause?.code, code);
  return true;
};

for (const initialize of [true, false]) {
  test(`a missing binary rejects ready and every request instead of crashing node (initialize: ${initialize})`, async () => {
    const client = Client.spawn('/nope/fetchd', { initialize });
    const early = client.ping();
    if (initialize) await assert.rejects(client.ready, cannotStart('/nope/fetchd', 'ENOENT'));
    await assert.rejects(early, cannotStart('/nope/fetchd', 'ENOENT'));
    await assert.rejects(client.ping(), cannotStart('/nope/fetchd', 'ENOENT'));
    assert.equal(await client.close(), null);
  });
}

test('a file that is not executable rejects the same way (EACCES)', async (t) => {
  const path = join(scratch(t), 'fetchd');
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o644);
  const client = Client.spawn(path);
  await assert.rejects(client.ready, cannotStart(path, 'EACCES'));
  assert.equal(await client.close(), null);
});

/** The files the package ships (package.json `files`), copied to dir/node_modules/fetchd-client:
 * an install outside the repository, so its build outputs cannot be what spawn finds. */
function install(dir) {
  const target = join(dir, 'node_modules', 'fetchd-client');
  const pkg = JSON.parse(readFileSync(join(JS_ROOT, 'package.json'), 'utf8'));
  for (const name of ['package.json', ...pkg.files]) {
    if (existsSync(join(JS_ROOT, name))) cpSync(join(JS_ROOT, name), join(target, name), { recursive: true });
  }
}

/** Runs `code` as an ES module in `dir` with exactly the environment `env`; its stdout as JSON. */
function runIn(dir, code, env) {
  writeFileSync(join(dir, 'main.mjs'), code);
  return JSON.parse(execFileSync(process.execPath, [join(dir, 'main.mjs')], { cwd: dir, env, encoding: 'utf8', timeout: 30000 }));
}

test('spawn() with no path finds fetchd on PATH (FETCHD unset, outside the repository)', (t) => {
  const dir = scratch(t);
  install(dir);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(resolve(fetchdBinary()), join(bin, 'fetchd'));
  const code = `import { Client } from 'fetchd-client';
const client = Client.spawn();
const info = await client.ready;
const pong = await client.ping();
console.log(JSON.stringify({ binary: client.binary, name: info.serverInfo.name, protocolVersion: info.protocolVersion, pong, code: await client.close() }));
`;
  const seen = runIn(dir, code, { PATH: [bin, dirname(process.execPath)].join(delimiter) });
  assert.deepEqual(seen, { binary: join(bin, 'fetchd'), name: 'fetchd', protocolVersion: 1, pong: {}, code: 0 });
});

test('spawn() with nothing to find throws at once, saying where it looked', (t) => {
  const dir = scratch(t);
  install(dir);
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  const code = `import { Client } from 'fetchd-client';
try {
  Client.spawn();
  console.log(JSON.stringify({ spawned: true }));
} catch (error) {
  console.log(JSON.stringify({ message: error.message }));
}
`;
  const seen = runIn(dir, code, { PATH: empty });
  assert.match(seen.message ?? '', /^fetchd binary not found: .*FETCHD=.*on the PATH/);
});
