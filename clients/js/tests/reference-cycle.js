// A reference producer of one cycle's notifications (protocol.md §10, Notifications and change
// cycles) for hand-built tables, so mirror tests can use arbitrary valid batches. Tables: [[sectionName, [objects]]].
// Stays: unchanged survivors plus changed survivors kept greedily in NEW order while their OLD
// order still increases and their section is unchanged (valid, not necessarily fewest moves).

function positions(table) {
  const out = new Map();
  table.forEach(([name, rows], s) => rows.forEach((row, r) => out.set(row.id, [s, r, name])));
  return out;
}

export const info = (name, rows) => ({ name, indexTitle: name.slice(0, 1).toUpperCase(), numberOfObjects: rows.length });
const cmp = (a, b) => a[0] - b[0] || a[1] - b[1];

export function cycle(controller, old, neu, changed) {
  const before = positions(old);
  const after = positions(neu);
  const newObjects = new Map(neu.flatMap(([, rows]) => rows.map((r) => [r.id, r])));
  const oldIds = [...before.keys()].sort((a, b) => cmp(before.get(a), before.get(b)));
  const oldOrder = new Map(oldIds.map((id, i) => [id, i]));
  const newIds = [...after.keys()].sort((a, b) => cmp(after.get(a), after.get(b)));
  const newRank = new Map(newIds.map((id, i) => [id, i]));
  const survivors = newIds.filter((id) => before.has(id));
  let stays = survivors.filter((id) => !changed.has(id));
  const moves = [];
  for (const id of survivors.filter((s) => changed.has(s))) {
    const candidate = [...stays, id].sort((a, b) => newRank.get(a) - newRank.get(b));
    const olds = candidate.map((c) => oldOrder.get(c));
    const increasing = olds.every((v, i) => i === 0 || olds[i - 1] < v);
    if (before.get(id)[2] === after.get(id)[2] && increasing) stays = candidate;
    else moves.push(id);
  }
  const updates = stays.filter((id) => changed.has(id));
  const oldNames = old.map(([n]) => n);
  const newNames = neu.map(([n]) => n);
  const sectionDeletes = oldNames.map((n, i) => [n, i]).filter(([n]) => !newNames.includes(n)).map(([, i]) => i);
  const sectionInserts = newNames.map((n, i) => [n, i]).filter(([n]) => !oldNames.includes(n)).map(([, i]) => i);
  const deletes = oldIds.filter((id) => !after.has(id));
  const inserts = newIds.filter((id) => !before.has(id));
  if (!sectionDeletes.length && !sectionInserts.length && !deletes.length && !inserts.length && !moves.length && !updates.length) return [];
  const path = (where, id) => where.get(id).slice(0, 2);
  const out = [['controller/willChangeContent', { controller }]];
  for (const i of [...sectionDeletes].reverse()) out.push(['controller/didChangeSection', { controller, type: 'delete', sectionIndex: i, section: info(...old[i]) }]);
  for (const i of sectionInserts) out.push(['controller/didChangeSection', { controller, type: 'insert', sectionIndex: i, section: info(...neu[i]) }]);
  for (const id of [...deletes].reverse()) out.push(['controller/didChangeObject', { controller, type: 'delete', id, indexPath: path(before, id) }]);
  for (const [type, ids] of [['move', moves], ['insert', inserts], ['update', updates]]) {
    for (const id of [...ids].sort((a, b) => newRank.get(a) - newRank.get(b))) {
      const params = { controller, type, id, newIndexPath: path(after, id), object: { ...newObjects.get(id) } };
      if (type !== 'insert') params.indexPath = path(before, id);
      out.push(['controller/didChangeObject', params]);
    }
  }
  out.push(['controller/didChangeContent', { controller }]);
  return out;
}

/** Sections by section key ascending, rows by sort key then id number (protocol.md §9, The results). */
export function tableOf(objects, sectionKey, sortKey) {
  const num = (o) => Number(o.id.split('/')[1]);
  const ordered = [...objects].sort((a, b) =>
    a[sectionKey] < b[sectionKey] ? -1 : a[sectionKey] > b[sectionKey] ? 1 : a[sortKey] - b[sortKey] || num(a) - num(b),
  );
  const table = [];
  for (const o of ordered) {
    if (!table.length || table[table.length - 1][0] !== o[sectionKey]) table.push([o[sectionKey], []]);
    table[table.length - 1][1].push({ ...o });
  }
  return table;
}

/** Deterministic PRNG (mulberry32) so random runs repeat. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}
