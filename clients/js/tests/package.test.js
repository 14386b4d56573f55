// What `npm pack` ships (package.json `files`): the tarball holds the client and its types and
// none of tests/, tools/, samples/; unpacked into a node_modules elsewhere it imports and
// type-checks by its package name. npm runs offline here (it contacts no registry to pack).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as api from '../index.js';
import { findTsc, runTsc } from './tsc.js';

const JS_ROOT = fileURLToPath(new URL('..', import.meta.url));
const NPM = process.env.NPM || 'npm';
const npmMissing = spawnSync(NPM, ['--version'], { encoding: 'utf8' }).status !== 0;
const skip = npmMissing && `npm not found (${NPM}): the package checks need it (apt-get install npm)`;

let dir;
let packed; // npm pack --json's entry for the tarball
let app; // a project with the tarball unpacked in node_modules/fetchd-client

before(() => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'fetchd-js-pack-'));
  const hadLicense = existsSync(join(JS_ROOT, 'LICENSE'));
  const env = {
    ...process.env,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  const run = spawnSync(NPM, ['pack', '--json', '--pack-destination', dir], { cwd: JS_ROOT, env, encoding: 'utf8' });
  assert.equal(run.status, 0, `npm pack failed:\n${run.stdout}${run.stderr}`);
  [packed] = JSON.parse(run.stdout);
  if (!hadLicense) assert.ok(!existsSync(join(JS_ROOT, 'LICENSE')), 'postpack removes the LICENSE copy');
  app = join(dir, 'app');
  const target = join(app, 'node_modules', 'fetchd-client');
  mkdirSync(target, { recursive: true });
  const untar = spawnSync('tar', ['-xzf', join(dir, packed.filename), '-C', target, '--strip-components=1'], { encoding: 'utf8' });
  assert.equal(untar.status, 0, untar.stderr);
});

after(() => dir && rmSync(dir, { recursive: true, force: true }));

test('npm pack ships index.js, index.d.ts, src/*.js, package.json, README.md (+ LICENSE) and nothing else', { skip }, (t) => {
  const paths = packed.files.map((f) => f.path).sort();
  t.diagnostic(`${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.entryCount} files`);
  assert.deepEqual(paths.filter((p) => /^(tests|tools|samples)\//.test(p)), []);
  const sources = readdirSync(join(JS_ROOT, 'src')).filter((name) => name.endsWith('.js')).map((name) => `src/${name}`);
  // The project's license is the repository's LICENSE, copied in while packing (tools/license.js).
  const license = existsSync(join(JS_ROOT, '..', '..', 'LICENSE')) ? ['LICENSE'] : [];
  assert.deepEqual(paths, [...license, 'README.md', 'index.d.ts', 'index.js', 'package.json', ...sources].sort());
});

test('the packed package imports by name from a project outside the repository', { skip }, () => {
  writeFileSync(
    join(app, 'check.mjs'),
    `import * as api from 'fetchd-client';
console.log(JSON.stringify({ url: import.meta.resolve('fetchd-client'), exports: Object.keys(api).sort(), clientInfo: api.CLIENT_INFO, protocol: api.PROTOCOL_VERSION }));
`,
  );
  const run = spawnSync(process.execPath, ['check.mjs'], { cwd: app, env: { PATH: process.env.PATH }, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const seen = JSON.parse(run.stdout);
  assert.equal(fileURLToPath(seen.url), join(app, 'node_modules', 'fetchd-client', 'index.js'));
  assert.deepEqual(seen.exports, Object.keys(api).sort());
  assert.deepEqual(seen.clientInfo, { ...api.CLIENT_INFO });
  assert.equal(seen.protocol, api.PROTOCOL_VERSION);
});

test('the packed package type-checks by name (package.json types and exports)', { skip }, () => {
  const tsc = findTsc();
  copyFileSync(fileURLToPath(new URL('typecheck/node-shim.d.ts', import.meta.url)), join(app, 'node-shim.d.ts'));
  writeFileSync(join(app, 'package.json'), '{"type": "module"}\n');
  writeFileSync(
    join(app, 'check.ts'),
    `import { Client, PROTOCOL_VERSION, type InitializeResult } from 'fetchd-client';
export async function check(): Promise<number> {
  const client: Client = Client.spawn(null, { initialize: true });
  const info: InitializeResult | null = await client.ready;
  const version: 1 = PROTOCOL_VERSION;
  return (info?.protocolVersion ?? 0) + version;
}
`,
  );
  const options = { noEmit: true, strict: true, target: 'es2022', lib: ['es2022'], module: 'node16', moduleResolution: 'node16', types: [] };
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['node-shim.d.ts', 'check.ts'] }));
  const { status, output } = runTsc(tsc, join(app, 'tsconfig.json'));
  assert.equal(status, 0, output);
});
