// store/batchInsert, batchUpdate, batchUpdateObjects and batchDelete against the real fetchd:
// each reaches a live controller's mirror as one cycle; a bad batch lists every problem and
// writes nothing.
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

test('batchUpdateObjects: objects and columnar rows in one request, one cycle per controller', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const main = client.context();
    const { ids } = await client.batchInsert('Contact', {
      keys: ['name', 'initial', 'age'],
      rows: Array.from({ length: 12 }, (_, i) => [`p${i}`, 'P', i]),
      returnIds: true,
    });
    const people = await main.controller('people', fetchRequest('Contact', { sortDescriptors: ['age', 'name'] }));
    const other = await client.createContext('other');
    const old = await other.controller('old', fetchRequest('Contact', { predicate: 'age >= 40', sortDescriptors: ['name'] }), {
      mode: 'difference',
    });
    const result = await client.batchUpdateObjects('Contact', {
      objects: [{ id: ids[0], age: 70, name: 'Zed' }, { id: ids[1], phone: '555' }],
      ids: [ids[2], ids[3], ids[4]],
      keys: ['age', 'initial'],
      rows: [[41, 'Q'], [42, 'R'], [1, 'S']],
    });
    assert.deepEqual(result, { count: 5 });
    assert.equal(people.cycles, 1);
    assert.equal(old.cycles, 1);
    assert.deepEqual(old.mirror.ids(), [[ids[0], ids[2], ids[3]]]);
    await checkMirror(people);
    await checkMirror(old);
    const fresh = await main.fetch(fetchRequest('Contact', { sortDescriptors: ['age', 'name'] }));
    assert.deepEqual(people.mirror.sections.map((s) => s.rows), [fresh]);
    const got = await main.get(ids.slice(0, 6), ['name', 'initial', 'age', 'phone']);
    assert.deepEqual(got.map(({ name, initial, age, phone }) => [name, initial, age, phone]), [
      ['Zed', 'P', 70, null],
      ['p1', 'P', 1, '555'],
      ['p2', 'Q', 41, null],
      ['p3', 'R', 42, null],
      ['p4', 'S', 1, null],
      ['p5', 'P', 5, null],
    ]);
  } finally {
    assert.equal(await client.close(), 0);
  }
});

test('batchUpdateObjects: a bad request lists every problem by row and changes nothing', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const main = client.context();
    const { ids } = await client.batchInsert('Contact', { keys: ['name', 'initial', 'age'], rows: [['a', 'A', 1], ['b', 'B', 2]], returnIds: true });
    const people = await main.controller('people', fetchRequest('Contact', { sortDescriptors: ['age'] }), { mode: 'difference' });
    const before = await main.fetch(fetchRequest('Contact', { sortDescriptors: ['age'] }));
    await assert.rejects(
      client.batchUpdateObjects('Contact', {
        objects: [{ id: ids[0], age: 50 }, { id: 'Contact/999', age: 3 }],
        ids: [ids[1]],
        keys: ['age'],
        rows: [['old']],
      }),
      (e) => {
        assert.ok(e instanceof FetchdError);
        assert.equal(e.code, -32030);
        assert.deepEqual(e.data.errors.map((p) => [p.row, p.id, p.key]), [[1, 'Contact/999', undefined], [2, undefined, 'age']]);
        return true;
      },
    );
    await assert.rejects(
      client.batchUpdateObjects('Contact', { ids: ['Contact-1'], keys: ['age'], rows: [[5]] }),
      (e) => e instanceof FetchdError && e.code === -32602,
    );
    await assert.rejects(
      client.batchUpdateObjects('Contact', { ids: [ids[0]], keys: ['age'], rows: [[5], [6]] }),
      (e) => e instanceof FetchdError && e.code === -32602,
    );
    assert.equal(people.cycles, 0);
    assert.deepEqual(await main.fetch(fetchRequest('Contact', { sortDescriptors: ['age'] })), before);
    await checkMirror(people);
  } finally {
    assert.equal(await client.close(), 0);
  }
});

test('batchInsertInParts: several requests, one cycle, ids in row order; a bad part holds nothing', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const people = await client.context().controller('people', fetchRequest('Contact', { sortDescriptors: ['age', 'name'] }), {
      mode: 'difference',
    });
    let requests = 0;
    const request = client.core.request.bind(client.core);
    client.core.request = (method, params) => {
      if (method === 'store/batchInsert') requests += 1;
      return request(method, params);
    };
    const rows = Array.from({ length: 25000 }, (_, i) => [`p${String(i).padStart(5, '0')}`, 'P', (i * 7919) % 90]);
    const result = await client.batchInsertInParts('Contact', ['name', 'initial', 'age'], rows, { partBytes: 200000, returnIds: true });
    assert.ok(requests >= 3, `${requests} requests`);
    assert.equal(result.count, 25000);
    const numbers = result.ids.map((id) => Number(id.split('/')[1]));
    assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b));
    assert.equal(people.cycles, 1);
    await checkMirror(people);

    const bad = rows.map((row) => [...row]);
    bad[20003][2] = 'old';
    await assert.rejects(
      client.batchInsertInParts('Contact', ['name', 'initial', 'age'], bad, { partBytes: 100000 }),
      (e) => e instanceof FetchdError && e.code === -32030 && e.data.errors[0].row === 20003 && e.data.heldRowsDropped > 0,
    );
    assert.deepEqual(await client.cancelBatchInsert('Contact'), { count: 0 });
    assert.equal(people.cycles, 1);
    assert.equal((await client.batchInsertInParts('Contact', ['name', 'initial', 'age'], rows.slice(0, 3))).count, 3);
    assert.equal(people.cycles, 2);
  } finally {
    assert.equal(await client.close(), 0);
  }
});

test('progress: a workDoneToken brings $/progress begin, reports and end before the answer', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const seen = [];
    client.on('$/progress', (params) => seen.push(params));
    const rows = Array.from({ length: 500 }, (_, i) => [`p${i}`, 'P', i]);
    const answer = await client.batchInsert('Contact', { keys: ['name', 'initial', 'age'], rows, workDoneToken: 'load' });
    assert.equal(answer.count, 500);
    assert.ok(seen.length >= 3, JSON.stringify(seen));
    assert.ok(seen.every((p) => p.token === 'load'));
    assert.equal(seen[0].value.kind, 'begin');
    assert.equal(seen[0].value.title, 'store/batchInsert');
    assert.equal(seen.at(-1).value.kind, 'end');
    assert.ok(seen.some((p) => p.value.message === 'checking 500 rows'));
  } finally {
    await client.close();
  }
});
