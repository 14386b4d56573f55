import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChangeBatch, ControllerCore, MirrorError, ProtocolViolation, TableMirror, objectChangeFromWire, sectionChangeFromWire } from '../index.js';
import { cycle, info, rng, tableOf } from './reference-cycle.js';

const obj = (n, values = {}) => ({ id: `Contact/${n}`, ...values });
const load = (mirror, table) => mirror.load(table.map(([n, rows]) => info(n, rows)), table.map(([, rows]) => rows));
const asTable = (mirror) => mirror.sections.map((s) => [s.name, s.rows]);
const change = (type, n, indexPath, newIndexPath, values) =>
  objectChangeFromWire({ type, id: `Contact/${n}`, indexPath, newIndexPath, object: newIndexPath ? obj(n, values) : undefined });
const section = (type, sectionIndex, name, count) => sectionChangeFromWire({ type, sectionIndex, section: info(name, Array(count)) });

test('a rename moves a contact into a new section and deletes the emptied one', () => {
  const mirror = new TableMirror();
  load(mirror, [['A', [obj(1, { name: 'Ana' })]], ['C', [obj(2, { name: 'Cid' })]]]);
  mirror.apply(new ChangeBatch([section('delete', 0, 'A', 1), section('insert', 1, 'Z', 1)], [change('move', 1, [0, 0], [1, 0], { name: 'Zoe' })]));
  assert.deepEqual(asTable(mirror), [['C', [obj(2, { name: 'Cid' })]], ['Z', [obj(1, { name: 'Zoe' })]]]);
  assert.deepEqual(mirror.sectionIndexTitles(), ['C', 'Z']);
});

test('a swap is one move and one update', () => {
  const mirror = new TableMirror();
  load(mirror, [['', [obj(1, { k: 1 }), obj(2, { k: 2 }), obj(3, { k: 3 })]]]);
  mirror.apply(new ChangeBatch([], [change('move', 1, [0, 0], [0, 1], { k: 2 }), change('update', 2, [0, 1], [0, 0], { k: 1 })]));
  assert.deepEqual(mirror.ids(), [['Contact/2', 'Contact/1', 'Contact/3']]);
  assert.deepEqual(mirror.objectAt([0, 0]), obj(2, { k: 1 }));
});

test('inconsistent batches throw and leave the mirror unchanged', () => {
  const cases = [
    [new ChangeBatch([], [change('delete', 9, [0, 0])]), /holds "Contact\/1"/],
    [new ChangeBatch([], [change('delete', 1, [0, 5])]), /has 2 rows/],
    [new ChangeBatch([], [change('insert', 3, undefined, [2, 0])]), /no section 2/],
    [new ChangeBatch([section('delete', 0, '', 2)], []), /unreported/],
    // Fails after earlier steps changed the mirror: those are undone.
    [new ChangeBatch([], [change('delete', 2, [0, 1]), change('insert', 3, undefined, [2, 0])]), /no section 2/],
    [new ChangeBatch([section('insert', 1, 'Z', 1)], [change('move', 1, [0, 0], [1, 0]), change('update', 9, [0, 0], [0, 0])]), /updates "Contact\/9"/],
  ];
  for (const [batch, message] of cases) {
    const mirror = new TableMirror();
    load(mirror, [['', [obj(1), obj(2)]]]);
    assert.throws(() => mirror.apply(batch), (e) => e instanceof MirrorError && message.test(e.message));
    assert.deepEqual(mirror.ids(), [['Contact/1', 'Contact/2']]);
    assert.deepEqual(mirror.sections.map((s) => s.name), ['']);
  }
});

test('malformed notifications are protocol violations', () => {
  assert.throws(() => objectChangeFromWire({ type: 'insert', id: 'N/1' }), ProtocolViolation);
  assert.throws(() => objectChangeFromWire({ type: 'move', id: 'N/1', indexPath: [0, 0] }), ProtocolViolation);
  assert.throws(() => objectChangeFromWire({ type: 'update', id: 'N/1', indexPath: [0], newIndexPath: [0, 0] }), ProtocolViolation);
  const core = new ControllerCore('c');
  assert.throws(() => core.handleNotification('controller/didChangeContent', { controller: 'c' }), ProtocolViolation);
});

test('delegate and events see the cycle in order; didChangeContent renders from the applied mirror', () => {
  const old = [['A', [obj(1, { name: 'Ana' })]], ['B', [obj(2, { name: 'Bo' })]]];
  const neu = [['B', [obj(2, { name: 'Bo' }), obj(1, { name: 'Bea' })]]];
  const mirror = new TableMirror();
  load(mirror, old);
  const calls = [];
  const delegate = {
    willChangeContent: () => calls.push(['will']),
    didChangeSection: (c, s, i, type) => calls.push(['section', type, i, s.name]),
    didChangeObject: (c, o, p, type, np) => calls.push(['object', type, o.id, p, np]),
    didChangeContent: (c) => calls.push(['did', c.mirror.ids()]),
  };
  const core = new ControllerCore('contacts', { delegate, mirror });
  const events = [];
  core.on('didChangeObject', (o, p, type) => events.push(type));
  core.on('cycle', (batch) => events.push(batch.counts()));
  for (const [m, p] of cycle('contacts', old, neu, new Set(['Contact/1']))) core.handleNotification(m, p);
  assert.deepEqual(calls, [['will'], ['section', 'delete', 0, 'A'], ['object', 'move', 'Contact/1', [0, 0], [0, 1]], ['did', [['Contact/2', 'Contact/1']]]]);
  assert.deepEqual(events, ['move', { 'section-delete': 1, move: 1 }]);
});

test('random reference cycles rebuild NEW from OLD', () => {
  const r = rng(20261123);
  const letters = ['A', 'B', 'C', 'D', 'E'];
  for (let run = 0; run < 150; run++) {
    const objects = new Map();
    let next = 1;
    const add = () => {
      objects.set(next, { id: `Contact/${next}`, initial: r.pick(letters), rank: r.int(0, 5) });
      next++;
    };
    for (let i = r.int(0, 8); i > 0; i--) add();
    const mirror = new TableMirror();
    let old = tableOf([...objects.values()], 'initial', 'rank');
    load(mirror, old);
    const core = new ControllerCore('c', { mirror });
    for (let step = 0; step < 12; step++) {
      const changed = new Set();
      for (let k = r.int(1, 4); k > 0; k--) {
        const op = r.next();
        if (op < 0.3 || !objects.size) add();
        else if (op < 0.5) objects.delete(r.pick([...objects.keys()]));
        else {
          const n = r.pick([...objects.keys()]);
          const key = r.pick(['initial', 'rank']);
          const value = key === 'initial' ? r.pick(letters) : r.int(0, 5);
          if (objects.get(n)[key] !== value) {
            objects.set(n, { ...objects.get(n), [key]: value });
            changed.add(`Contact/${n}`);
          }
        }
      }
      const neu = tableOf([...objects.values()], 'initial', 'rank');
      const live = new Set([...objects.values()].map((o) => o.id));
      for (const [m, p] of cycle('c', old, neu, new Set([...changed].filter((id) => live.has(id))))) core.handleNotification(m, p);
      assert.deepEqual(asTable(mirror), neu, `run ${run}`);
      old = neu;
    }
  }
});

test('large rows-mode cycles rebuild sections in runs', () => {
  // Hundreds of rows removed, inserted and moved in a few big sections: runs of consecutive
  // rows, and more runs than are spliced one at a time, section changes included.
  const r = rng(20261128);
  for (let run = 0; run < 30; run++) {
    const objects = new Map();
    let next = 1;
    for (let i = r.int(100, 400); i > 0; i--, next++) objects.set(next, { id: `Contact/${next}`, initial: r.pick(['A', 'B', 'C']), rank: r.int(0, 50) });
    const mirror = new TableMirror();
    let old = tableOf([...objects.values()], 'initial', 'rank');
    load(mirror, old);
    const core = new ControllerCore('c', { mirror });
    for (let step = 0; step < 4; step++) {
      const changed = new Set();
      const share = r.pick([2, 3, 10]);
      for (const n of [...objects.keys()]) {
        if (r.next() >= 1 / share) continue;
        const roll = r.next();
        if (roll < 0.4) objects.delete(n);
        else if (roll < 0.8) {
          objects.set(n, { ...objects.get(n), rank: r.int(0, 50), initial: r.pick(['A', 'B', 'C', 'D']) });
          changed.add(`Contact/${n}`);
        }
      }
      for (let i = r.int(0, 150); i > 0; i--, next++) objects.set(next, { id: `Contact/${next}`, initial: r.pick(['A', 'B', 'C', 'D']), rank: r.int(0, 50) });
      const neu = tableOf([...objects.values()], 'initial', 'rank');
      const live = new Set([...objects.values()].map((o) => o.id));
      for (const [m, p] of cycle('c', old, neu, new Set([...changed].filter((id) => live.has(id))))) core.handleNotification(m, p);
      assert.deepEqual(asTable(mirror), neu, `run ${run}`);
      old = neu;
    }
  }
});

test('a row removed twice in one cycle is refused whole', () => {
  const mirror = new TableMirror();
  load(mirror, [['', [obj(1), obj(2), obj(3)]]]);
  const batch = new ChangeBatch([], [change('delete', 2, [0, 1]), change('move', 2, [0, 1], [0, 0])]);
  assert.throws(() => mirror.apply(batch), (e) => e instanceof MirrorError && /removed twice/.test(e.message));
  assert.deepEqual(mirror.ids(), [['Contact/1', 'Contact/2', 'Contact/3']]);
});
