// Context introspection against the real fetchd: hasChanges, changes, changedValues,
// committedValues, refresh and reset.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, FetchdError, fetchRequest } from '../index.js';
import { CONTACTS, fetchdBinary } from './helpers.js';

test('introspection: a context tells its unsaved changes, refreshes and resets', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const main = client.context();
    const ana = await main.insert('Contact', { name: 'Ana', initial: 'A', age: 30 });
    assert.equal(await main.hasChanges(), true);
    assert.deepEqual(await main.changes(), { inserted: [ana.id], updated: [], deleted: [] });
    assert.deepEqual(await main.committedValues(ana.id), {});
    await main.save();
    assert.equal(await main.hasChanges(), false);

    await main.update(ana.id, { age: 31 });
    assert.deepEqual(await main.changedValues(ana.id), { age: 31 });
    assert.deepEqual(await main.committedValues(ana.id, ['age', 'name']), { name: 'Ana', age: 30 });
    await main.refresh(ana.id, true);
    assert.equal((await main.get([ana.id], ['age']))[0].age, 31);
    await main.refresh(ana.id, false);
    assert.deepEqual(await main.changes(), { inserted: [], updated: [], deleted: [] });

    const bo = await main.insert('Contact', { name: 'Bo', initial: 'B' });
    await assert.rejects(main.refresh(bo.id, false), (e) => e instanceof FetchdError && e.kind === 'invalidValue');
    await main.reset();
    assert.equal(await main.count(fetchRequest('Contact')), 1);
  } finally {
    assert.equal(await client.close(), 0);
  }
});
