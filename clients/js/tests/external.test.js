// Other processes on one file (protocol.md §5) against the real fetchd: a watching fetchd
// emits their commits unsolicited, through the same events and mirrors as any cycle.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { test } from 'node:test';
import { Client, fetchRequest } from '../index.js';
import { CONTACTS, checkMirror, fetchdBinary } from './helpers.js';

/** Resolves with the next 'store/didChangeExternally' params, or rejects after `ms`. */
function nextExternalChange(client, ms = 5000) {
  return Promise.race([
    once(client, 'store/didChangeExternally').then(([params]) => params),
    new Promise((_, reject) => setTimeout(() => reject(new Error('no store/didChangeExternally')), ms).unref()),
  ]);
}

test('server: a watching fetchd emits another fetchd\'s and a plain writer\'s commits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fetchd-js-'));
  const path = join(dir, 'shared.sqlite');
  const a = Client.spawn(fetchdBinary(), { args: ['--watch', 'poll'] });
  const b = Client.spawn(fetchdBinary(), { args: ['--watch', 'off'] });
  try {
    await a.openStore(CONTACTS, path);
    await b.openStore(CONTACTS, path);
    const people = await a.controller('main', 'people', fetchRequest('Contact', { sortDescriptors: ['name'] }));
    const writer = await b.createContext('writer', { transactionAuthor: 'importer' });
    let heard = nextExternalChange(a);
    await writer.insert('Contact', { name: 'Ana', initial: 'A' });
    await writer.save();
    const change = await heard;
    assert.equal(change.transactions[0].author, 'importer');
    assert.deepEqual(people.mirror.sections[0].rows.map((r) => r.name), ['Ana']);
    await checkMirror(people);

    heard = nextExternalChange(a);
    execFileSync('python3', ['-c', `import sqlite3
db = sqlite3.connect(${JSON.stringify(path)}, timeout=5)
db.execute("INSERT INTO Contact (name, initial) VALUES ('Bo', 'B')")
db.commit()`]);
    assert.equal((await heard).transactions[0].author, null);
    assert.deepEqual(people.mirror.sections[0].rows.map((r) => r.name), ['Ana', 'Bo']);

    const history = await a.history(0, { authors: ['importer'] });
    assert.deepEqual(history.transactions.map((t) => t.author), ['importer']);
    const { token } = await a.historyToken();
    assert.deepEqual(await a.checkExternalChanges(), { merged: 0, token });
    // b may not have merged the last commit yet (its cursor holds it): force.
    assert.ok((await a.purgeHistory(token, { force: true })).deleted >= 1);
  } finally {
    assert.equal(await a.close(), 0);
    assert.equal(await b.close(), 0);
    rmSync(dir, { recursive: true, force: true });
  }
});
