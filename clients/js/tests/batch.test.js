// store/batchInsert, batchUpdate and batchDelete against the real fetchd: each reaches a live
// controller's mirror as one cycle; a bad batch lists every problem and writes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, FetchdError, fetchRequest } from '../index.js';
import { CONTACTS, checkMirror, fetchdBinary } from './helpers.js';

test('batch requests: objects and columnar rows, update, delete; the mirror follows each', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const main = client.context();
    const people = await main.controller('people', fetchRequest('Contact', { sortDescriptors: ['age', 'name'] }));
    let cycles = 0;
    people.on('didChangeContent', () => { cycles += 1; });
    const inserted = await client.batchInsert('Contact', {
      objects: [{ name: 'Ana', initial: 'A', age: 30 }],
      keys: ['name', 'initial', 'age'],
      rows: Array.from({ length: 200 }, (_, i) => [`p${i}`, 'P', (i * 37) % 90]),
      returnIds: true,
    });
    assert.equal(inserted.count, 201);
    assert.equal(inserted.ids.length, 201);
    assert.equal(cycles, 1);
    await checkMirror(people);
    assert.deepEqual(await client.batchUpdate('Contact', { age: 99 }, { predicate: 'age < $a', variables: { a: 10 } }), { count: 22 });
    await checkMirror(people);
    assert.deepEqual(await client.batchDelete('Contact', { predicate: 'age == 99' }), { count: 22 });
    assert.deepEqual(await client.batchDelete('Contact', { ids: [inserted.ids[0], inserted.ids[2], inserted.ids[3]] }), { count: 3 });
    assert.equal(cycles, 4);
    await checkMirror(people);
    await assert.rejects(
      client.batchInsert('Contact', { keys: ['name', 'age'], rows: [['x', 'old'], ['y']] }),
      (e) => e instanceof FetchdError && e.code === -32030 && e.data.errors.length === 3,
    );
    assert.equal(cycles, 4);
    assert.equal(people.mirror.count, 176);
  } finally {
    assert.equal(await client.close(), 0);
  }
});
