// notify mode "difference" (protocol.md §10.8): one controller/didChange per cycle, applied to
// the mirror in one step. Each request gets a rows-mode and a difference-mode controller over the
// same random cycles; after every cycle both mirrors must be equal and equal a fresh fetch.
// FETCHD_RANDOM_CYCLES runs longer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, Difference, FetchdError, MirrorError, TableMirror, fetchRequest, sort } from '../index.js';
import { CONTACTS, checkMirror, fetchdBinary } from './helpers.js';
import { rng } from './reference-cycle.js';
import { insertRuns, removeRuns, replaceRuns } from '../src/mirror.js';

const NAMES = ['Ana', 'al', 'Bo', 'bea', 'Cy', 'Dee', 'dan', 'Eve', 'Zoe'];
const values = (r) => {
  const name = r.pick(NAMES);
  return { name, initial: name[0].toUpperCase(), age: r.int(0, 4), phone: r.pick([null, '1', '2']) };
};

const REQUESTS = [
  ['sectioned', fetchRequest('Contact', { sortDescriptors: ['initial', 'name'] }), { sectionNameKeyPath: 'initial' }],
  ['young', fetchRequest('Contact', { predicate: 'age < 3', sortDescriptors: ['-age'] }), {}],
  ['window', fetchRequest('Contact', { sortDescriptors: [sort('name', true, 'caseInsensitiveCompare')], fetchLimit: 9, fetchOffset: 3 }), {}],
  ['keyed', fetchRequest('Contact', { sortDescriptors: ['name'] }), { sectionNameKeyPath: 'age', notify: { keys: ['name'] } }],
  ['bare', fetchRequest('Contact', { sortDescriptors: ['age'] }), { notify: { objects: false } }],
];

function change(r, ids, target) {
  const op = r.next();
  if (op < 0.3 || !ids.length) target.insert('Contact', values(r));
  else if (op < 0.45) target.delete(ids.splice(r.int(0, ids.length - 1), 1)[0]);
  else target.update(r.pick(ids), { age: r.int(0, 4), name: r.pick(NAMES) });
}

for (const seed of [3, 4]) {
  test(`difference mirrors equal rows mirrors and a fresh fetch (seed ${seed})`, async () => {
    const r = rng(seed);
    const client = Client.spawn(fetchdBinary());
    try {
      await client.openStore(CONTACTS);
      const main = client.context();
      const seedBatch = main.batch();
      for (let i = 0; i < 40; i++) seedBatch.insert('Contact', values(r));
      await seedBatch.send();
      const twins = [];
      for (const [name, request, options] of REQUESTS) {
        twins.push([await main.controller(name, request, options), await main.controller(`${name}Diff`, request, { ...options, mode: 'difference' })]);
      }
      let cycles = 0;
      for (let step = 0; step < Number(process.env.FETCHD_RANDOM_CYCLES ?? 60); step++) {
        const ids = await main.fetchIds(fetchRequest('Contact'));
        const before = twins.map(([, diff]) => diff.cycles);
        const op = r.next();
        if (op < 0.5) {
          const batch = main.batch();
          // Up to 40 changes: enough runs in one section for the one-pass rebuild.
          for (let i = r.pick([2, 5, 40]); i > 0; i--) change(r, ids, batch);
          await batch.send();
        } else if (op < 0.85) {
          const one = main.batch();
          change(r, ids, one);
          await one.send();
        } else if (op < 0.95) await main.save();
        else await main.rollback();
        for (const [i, [rows, diff]] of twins.entries()) {
          assert.equal(diff.lastBatch, null);
          assert.ok(diff.cycles - before[i] <= 1, 'one controller/didChange per cycle');
          cycles += diff.cycles - before[i];
          assert.deepEqual(diff.mirror.sections, rows.mirror.sections);
          if (diff.notify.objects === false) {
            const fresh = (await diff.fetched()).map((section) => section.map((o) => ({ id: o.id })));
            assert.deepEqual(diff.mirror.sections.map((s) => s.rows), fresh);
            assert.deepEqual(diff.mirror.sectionInfos(), await diff.sections());
          } else {
            await checkMirror(diff);
          }
        }
      }
      assert.ok(cycles > 50);
    } finally {
      assert.equal(await client.close(), 0);
    }
  });
}

test('a delete run is one run; a bad mode names notify.mode', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const main = client.context();
    const diff = await main.controller('diff', fetchRequest('Contact', { sortDescriptors: ['age'] }), { notify: { keys: ['age'] }, mode: 'difference' });
    const seen = [];
    diff.on('cycle', (cycle) => seen.push(cycle));
    const batch = main.batch();
    for (let age = 0; age < 300; age++) batch.insert('Contact', { name: 'n', initial: 'N', age });
    await batch.send();
    assert.ok(seen[0] instanceof Difference);
    assert.deepEqual(seen[0].inserted, [[0, 0, 300]]);
    const ids = diff.mirror.ids()[0];
    const deletes = main.batch();
    for (const id of ids.slice(50, 250)) deletes.delete(id);
    await deletes.send();
    assert.deepEqual(diff.lastDifference.deleted, [[0, 50, 200]]);
    assert.deepEqual(diff.mirror.ids(), [[...ids.slice(0, 50), ...ids.slice(250)]]);
    await checkMirror(diff);
    await assert.rejects(main.controller('x', fetchRequest('Contact'), { mode: 'x' }), (e) => e instanceof FetchdError && e.code === -32602 && e.data.param === 'notify.mode');
  } finally {
    assert.equal(await client.close(), 0);
  }
});

const difference = (fields) => new Difference({ controller: 'c', sections: { deleted: [], inserted: [] }, deleted: [], inserted: [], moved: [], updated: [], ids: [], ...fields });

test('a bad didChange leaves the mirror unchanged; a long run is no spread', () => {
  const mirror = new TableMirror();
  mirror.load([{ name: '', indexTitle: '', numberOfObjects: 20 }], [Array.from({ length: 20 }, (_, i) => ({ id: `C/${i}` }))]);
  const before = structuredClone(mirror.sections);
  const deleted = Array.from({ length: 10 }, (_, k) => [0, 18 - 2 * k, 1]);
  assert.throws(() => mirror.applyDifference(difference({ deleted, updated: [[0, 0, 1]], ids: ['C/0'] })), MirrorError);
  assert.deepEqual(mirror.sections, before);
  mirror.applyDifference(difference({ deleted, updated: [[0, 0, 1]], ids: ['C/1'] }));
  assert.deepEqual(mirror.ids(), [Array.from({ length: 10 }, (_, k) => `C/${2 * k + 1}`)]);
  const big = new TableMirror();
  big.load([{ name: '', indexTitle: '', numberOfObjects: 0 }], [[]]);
  const ids = Array.from({ length: 300000 }, (_, i) => `C/${i + 1}`);
  big.applyDifference(difference({ inserted: [[0, 0, ids.length]], ids }));
  assert.equal(big.count, 300000);
  assert.equal(big.objectAt([0, 299999]).id, 'C/300000');
});

test('many moves in one section rebuild it once, as removes then inserts would', () => {
  // Seeded random runs, more than 8 on both sides (the one-pass path): the one-pass rebuild must
  // leave exactly what removing the old runs and then inserting the new ones leaves.
  const r = rng(20261126);
  const section = (n) => [{ name: '', indexTitle: '', rows: Array.from({ length: n }, (_, i) => ({ id: `C/${i}` })) }];
  for (let run = 0; run < 400; run++) {
    const n = r.int(70, 200); // each run below takes at most 7 rows: at least 10 runs fit
    const removed = [];
    for (let pos = 0; pos < n && removed.length < 30; ) {
      const row = pos + r.int(0, 3);
      if (row >= n) break;
      const count = r.int(1, Math.min(3, n - row));
      removed.push({ row, count });
      pos = row + count + 1;
    }
    let total = n - removed.reduce((k, { count }) => k + count, 0);
    const added = [];
    const objects = [];
    for (let k = r.int(9, 25), at = 0; k > 0; k--) {
      const row = r.int(at, total);
      const count = r.int(1, 3);
      added.push({ row, count, objects, start: objects.length });
      for (let j = 0; j < count; j++) objects.push({ id: `N/${objects.length}` });
      total += count;
      at = row + count;
    }
    assert.ok(removed.length > 8 && added.length > 8, `run ${run}: ${removed.length} removed, ${added.length} added runs`);
    const one = section(n);
    const before = one[0].rows;
    const undo = [];
    replaceRuns(one, 0, removed, added, undo);
    assert.equal(undo.length, 1, `run ${run}: one rebuild`);
    const two = section(n);
    removeRuns(two, 0, removed, []);
    insertRuns(two, 0, added, []);
    assert.deepEqual(one[0].rows, two[0].rows, `run ${run}`);
    assert.equal(one[0].rows.length, total);
    undo.pop()();
    assert.equal(one[0].rows, before);
    // A bad position, either side: refused before anything changes.
    const bad = r.next() < 0.5
      ? [removed, added.map((a, i) => (i === added.length - 1 ? { ...a, row: total - a.count + 1 } : a))]
      : [removed.map((x, i) => (i === removed.length - 1 ? { ...x, count: n - x.row + 1 } : x)), added];
    const three = section(n);
    const kept = three[0].rows;
    assert.throws(() => replaceRuns(three, 0, ...bad, undo), MirrorError, `run ${run}`);
    assert.equal(three[0].rows, kept);
    assert.equal(undo.length, 0);
    assert.deepEqual(kept, section(n)[0].rows);
  }
  // Twenty moves of a 40-row section (the even rows to the front), the last one to a row past
  // the end: refused whole, the mirror as it was; to its right place: applied.
  const moves = (last) => {
    const moved = Array.from({ length: 20 }, (_, i) => [0, 2 * i, 0, i]);
    moved[19][3] = last;
    return difference({ moved, ids: Array.from({ length: 20 }, (_, i) => `C/${2 * i}`) });
  };
  const mirror = new TableMirror();
  const ids = Array.from({ length: 40 }, (_, i) => `C/${i}`);
  mirror.load([{ name: '', indexTitle: '', numberOfObjects: 40 }], [ids.map((id) => ({ id }))]);
  const before = structuredClone(mirror.sections);
  assert.throws(() => mirror.applyDifference(moves(45)), MirrorError);
  assert.deepEqual(mirror.sections, before);
  mirror.applyDifference(moves(19));
  assert.deepEqual(mirror.ids(), [[...ids.filter((_, i) => i % 2 === 0), ...ids.filter((_, i) => i % 2 === 1)]]);
});
