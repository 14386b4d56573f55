// Undo and redo against the real fetchd: each is one change cycle that reaches the mirror.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, FetchdError, fetchRequest } from '../index.js';
import { CONTACTS, checkMirror, fetchdBinary } from './helpers.js';

test('undo: groups per cycle and by name, save keeps the stack, the mirror follows', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const editor = await client.createContext('editor', { undo: { levels: 10 } });
    const people = await editor.controller('people', fetchRequest('Contact', { sortDescriptors: ['name'] }));
    const ana = await editor.insert('Contact', { name: 'Ana', initial: 'A' });
    await editor.beginUndoGrouping({ actionName: 'Rename' });
    await editor.update(ana.id, { name: 'Zed' });
    assert.equal((await editor.endUndoGrouping()).undoActionName, 'Rename');
    await editor.save();
    const state = await editor.undo();
    assert.equal(state.redoActionName, 'Rename');
    assert.equal((await editor.get([ana.id], ['name']))[0].name, 'Ana');
    await checkMirror(people);
    await editor.redo();
    assert.equal(await editor.hasChanges(), false);
    await editor.undo();
    await editor.undo();
    assert.equal(await editor.count(fetchRequest('Contact')), 0);
    await checkMirror(people);
    await assert.rejects(client.context().undo(), (e) => e instanceof FetchdError && e.kind === 'invalidValue');
  } finally {
    assert.equal(await client.close(), 0);
  }
});
