// The JS client against the real fetchd (FETCHD=/path/to/fetchd).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Client, FetchdError, PROTOCOL_VERSION, fetchRequest, sort } from '../index.js';
import { rng } from './reference-cycle.js';
import { CONTACTS, NOTES, checkMirror, events, fetchdBinary, stamp } from './helpers.js';
import { DEFAULT_DOC } from '../tools/gen-types.js';

for (const framing of ['lsp', 'ndjson']) {
  test(`server: initialize, unknown method, shutdown (${framing})`, async () => {
    const client = Client.spawn(fetchdBinary(), { framing, initialize: false });
    const info = await client.initialize({ name: 'node-test', version: '1' });
    assert.equal(info.serverInfo.name, 'fetchd');
    assert.equal(info.protocolVersion, PROTOCOL_VERSION);
    await assert.rejects(client.request('no/such/method'), (e) => e instanceof FetchdError && e.code === -32601);
    assert.equal(await client.shutdown(), 0);
  });
}

test('server: spawn initializes first and fetchd speaks the client\'s protocol version', async () => {
  const client = Client.spawn(fetchdBinary());
  const opened = client.openStore(CONTACTS); // sent once the version is checked
  const info = await client.ready;
  assert.equal(info.serverInfo.name, 'fetchd');
  assert.equal(info.protocolVersion, PROTOCOL_VERSION);
  assert.deepEqual((await opened).entities, ['Contact']);
  // fetchd refuses a second initialize (alreadyInitialized): the client does not send one
  assert.equal(await client.initialize(), info);
  assert.equal(await client.shutdown(), 0);
});

test('server: contexts insert/update/get/fetch/count/save/delete/rollback and clear errors', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    assert.deepEqual((await client.openStore(CONTACTS)).entities, ['Contact']);
    const main = client.context();
    const ana = await main.insert('Contact', { name: 'Ana', initial: 'A', phone: '555' });
    assert.match(ana.id, /^Contact\/\d+$/);
    assert.equal(ana.age, 0);
    await main.insert('Contact', { name: 'Bob', initial: 'B', age: 40 });
    assert.equal((await main.update(ana.id, { age: 30 })).age, 30);
    assert.deepEqual(await main.get([ana.id], ['name', 'age']), [{ id: ana.id, name: 'Ana', age: 30 }]);
    const fetched = await main.fetch(fetchRequest('Contact', { predicate: 'age >= 30', sortDescriptors: ['-age'] }));
    assert.deepEqual(fetched.map((o) => o.name), ['Bob', 'Ana']);
    assert.deepEqual(await main.save(), { inserted: 2, updated: 0, deleted: 0 });
    await main.delete(ana.id);
    assert.equal(await main.count(fetchRequest('Contact')), 1);
    await main.rollback();
    assert.equal(await main.count(fetchRequest('Contact')), 2);
    await assert.rejects(main.insert('Nope', {}), (e) => e instanceof FetchdError && typeof e.kind === 'string' && e.kind.length > 0);
    await assert.rejects(client.context('nope').insert('Contact', { name: 'x', initial: 'x' }), (e) => typeof e.kind === 'string');
    assert.equal(await main.count(fetchRequest('Contact')), 2);
  } finally {
    assert.equal(await client.close(), 0);
  }
});

test('server: controller notifications drive the mirror (seeds 001, 002)', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore({ entities: [...CONTACTS.entities, ...NOTES.entities] });
    const main = client.context();
    const ana = await main.insert('Contact', { name: 'Ana', initial: 'A' });
    await main.insert('Contact', { name: 'Cid', initial: 'C' });
    const seen = [];
    client.on('notification', (method) => seen.push(method));
    const contacts = await main.controller('contacts', fetchRequest('Contact', { sortDescriptors: ['initial', 'name'] }), { sectionNameKeyPath: 'initial' });
    assert.deepEqual(seen, []);
    assert.deepEqual(await contacts.sectionIndexTitles(), ['A', 'C']);
    await main.update(ana.id, { name: 'Zoe', initial: 'Z' });
    assert.deepEqual(contacts.lastBatch.sections.map((s) => [s.type, s.sectionIndex, s.section.name]), [['delete', 0, 'A'], ['insert', 1, 'Z']]);
    assert.deepEqual(events(contacts), [['move', ana.id, [0, 0], [1, 0]]]);
    await checkMirror(contacts);

    const notes = await main.controller('notes', fetchRequest('Note', { sortDescriptors: ['-updatedAt'] }));
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await main.insert('Note', { title: `n${i}`, updatedAt: stamp(i) }));
    await main.update(made[0].id, { updatedAt: stamp(10) });
    assert.deepEqual(events(notes), [['move', made[0].id, [0, 2], [0, 0]]]);
    const cycles = notes.cycles;
    await main.update(made[0].id, { updatedAt: stamp(10) }); // no change: nothing is sent
    assert.equal(notes.cycles, cycles);
    for (const note of made) await main.delete(note.id);
    assert.deepEqual(notes.mirror.ids(), [[]]);
    await checkMirror(notes);
  } finally {
    assert.equal(await client.close(), 0);
  }
});

test('server: ping, echo, fetch with keys', async () => {
  const client = Client.spawn(fetchdBinary(), { framing: 'ndjson' });
  try {
    assert.deepEqual(await client.ping(), {});
    assert.deepEqual(await client.echo([0.1, 'é', { a: null }]), [0.1, 'é', { a: null }]);
    await client.openStore(NOTES);
    const main = client.context();
    const note = await main.insert('Note', { title: 'kept', contents: 'long', updatedAt: stamp(1) });
    assert.deepEqual(await main.fetch(fetchRequest('Note'), ['title']), [{ id: note.id, title: 'kept' }]);
  } finally {
    assert.equal(await client.close(), 0);
  }
});

test('server: client.discover() (rpc.discover) answers clients/openrpc.json', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    assert.deepEqual(await client.discover(), JSON.parse(readFileSync(DEFAULT_DOC, 'utf8')));
  } finally {
    assert.equal(await client.close(), 0);
  }
});

test('server: a batch is one cycle', async () => {
  const client = Client.spawn(fetchdBinary(), { framing: 'ndjson' });
  try {
    await client.openStore(NOTES);
    const notes = await client.context().controller('notes', fetchRequest('Note', { sortDescriptors: ['updatedAt'] }));
    const batch = client.batch();
    const a = batch.insert('Note', { title: 'a', updatedAt: stamp(1) });
    const b = batch.insert('Note', { title: 'b', updatedAt: stamp(2) });
    await batch.send();
    assert.equal(notes.cycles, 1);
    assert.deepEqual(notes.mirror.ids(), [[a.result.id, b.result.id]]);
    await checkMirror(notes);
  } finally {
    await client.close();
  }
});

test('server: randomized run, every mirror equals controller/rows after every cycle', async () => {
  const r = rng(7);
  const names = ['Ana', 'al', 'Bo', 'bea', 'Cy', 'Dee', 'Eve', 'Zoe', 'Émile', ''];
  const values = () => {
    const name = r.pick(names);
    return { name, initial: (name.slice(0, 1) || '#').toUpperCase(), age: r.int(0, 4), phone: r.pick([null, '1', '2']) };
  };
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const main = client.context();
    for (let i = 0; i < 8; i++) await main.insert('Contact', values());
    const controllers = [
      await main.controller('sectioned', fetchRequest('Contact', { sortDescriptors: ['initial', 'name'] }), { sectionNameKeyPath: 'initial' }),
      await main.controller('young', fetchRequest('Contact', { predicate: 'age < 3', sortDescriptors: ['-age'] })),
      await main.controller('window', fetchRequest('Contact', { sortDescriptors: [sort('name', true, 'caseInsensitiveCompare')], fetchLimit: 3, fetchOffset: 1 })),
      await main.controller('projected', fetchRequest('Contact', { sortDescriptors: ['age'] }), { sectionNameKeyPath: 'age', notify: { keys: ['name'] } }),
    ];
    const cycles = Number(process.env.FETCHD_RANDOM_CYCLES ?? 50);
    for (let step = 0; step < cycles; step++) {
      const ids = (await main.fetch(fetchRequest('Contact'))).map((o) => o.id);
      const op = r.next();
      if (op < 0.3 || !ids.length) await main.insert('Contact', values());
      else if (op < 0.45) await main.delete(r.pick(ids));
      else if (op < 0.75) await main.update(r.pick(ids), { age: r.int(0, 4), name: r.pick(names) });
      else if (op < 0.95) {
        const batch = main.batch();
        batch.insert('Contact', values());
        batch.update(r.pick(ids), { initial: r.pick(['A', 'B', 'Z']) });
        if (ids.length > 1) batch.delete(ids[ids.length - 1]);
        await batch.send();
      } else await main.save();
      for (const controller of controllers) await checkMirror(controller);
    }
  } finally {
    assert.equal(await client.close(), 0);
  }
});

test('server: performFetch reloads the mirror; close forgets the controller; a taken name is refused', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(NOTES);
    const main = client.context();
    const notes = await main.controller('notes', fetchRequest('Note', { sortDescriptors: ['updatedAt'] }));
    await assert.rejects(main.controller('notes', fetchRequest('Note')), (e) => e.code === -32025 && e.kind === 'duplicateName');
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await main.insert('Note', { title: `n${i}`, updatedAt: stamp(i) }));
    assert.deepEqual(notes.mirror.ids(), [made.map((m) => m.id)]); // the first controller still gets its cycles
    const seen = [];
    client.on('notification', (method) => seen.push(method));
    const sections = await notes.performFetch();
    assert.deepEqual(seen, []);
    assert.deepEqual(sections.map((s) => s.numberOfObjects), [3]);
    await checkMirror(notes);
    await notes.close();
    await assert.rejects(notes.sections(), (e) => e.kind === 'unknownController');
    await main.insert('Note', { title: 'after close', updatedAt: stamp(9) });
    assert.deepEqual(seen, []);
  } finally {
    assert.equal(await client.close(), 0);
  }
});
