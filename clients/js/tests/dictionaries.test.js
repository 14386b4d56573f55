// Dictionary, aggregate and id fetches against the real fetchd.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, fetchRequest } from '../index.js';
import { CONTACTS, fetchdBinary } from './helpers.js';

test('dictionaries: groups, aggregates, having, distinct and ids', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const main = client.context();
    for (const [name, initial, age] of [['Ana', 'A', 30], ['Al', 'A', 40], ['Bo', 'B', 20]]) {
      await main.insert('Contact', { name, initial, age });
    }
    await main.save();
    const rows = await main.fetchDictionaries(fetchRequest('Contact'), {
      propertiesToFetch: ['initial', { name: 'total', function: 'sum', keyPath: 'age' }],
      propertiesToGroupBy: ['initial'],
      havingPredicate: 'total > 25',
    });
    assert.deepEqual(rows, [{ initial: 'A', total: 70 }]);
    assert.deepEqual(await main.fetchDictionaries(fetchRequest('Contact'), { propertiesToFetch: ['initial'], returnsDistinctResults: true }),
      [{ initial: 'A' }, { initial: 'B' }]);
    const ids = await main.fetchIds(fetchRequest('Contact', { sortDescriptors: ['-age'] }));
    assert.equal(ids.length, 3);
    assert.equal((await main.get([ids[0]], ['name']))[0].name, 'Al');
  } finally {
    assert.equal(await client.close(), 0);
  }
});
