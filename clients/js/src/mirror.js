// TableMirror: a controller's sections and rows, kept in sync by applying each cycle's batch
// exactly as protocol.md §11 (Applying a cycle on the client) says.
import { DELETE, INSERT, MOVE, UPDATE } from './changes.js';
import { MirrorError } from './errors.js';

const comparePaths = (a, b) => a[0] - b[0] || a[1] - b[1];

export class TableMirror {
  constructor() {
    /** @type {{name: string, indexTitle: string, rows: object[]}[]} */
    this.sections = [];
  }

  /** Start from a full fetch: section infos and each section's rows. */
  load(infos, rows) {
    if (infos.length !== rows.length) throw new MirrorError(`${infos.length} sections but ${rows.length} row lists`);
    this.sections = infos.map((info, i) => {
      if (info.numberOfObjects !== rows[i].length) {
        throw new MirrorError(`section ${JSON.stringify(info.name)} says ${info.numberOfObjects} objects, got ${rows[i].length} rows`);
      }
      return { name: info.name, indexTitle: info.indexTitle, rows: rows[i].map((r) => ({ ...r })) };
    });
  }

  /** Apply one cycle; on error the mirror is unchanged and MirrorError is thrown. Changes are
   * made in place and undone from a log on error, so a cycle costs its own size, not a copy. */
  apply(batch) {
    const undo = [];
    try {
      applyInPlace(this.sections, batch, undo);
    } catch (error) {
      while (undo.length) undo.pop()();
      throw error;
    }
  }

  /** Apply one controller/didChange (protocol.md §11.4): the five steps of §11.1 a run at a
   * time, each run one slice. On error the mirror is unchanged and MirrorError is thrown. */
  applyDifference(difference) {
    const undo = [];
    try {
      applyDifferenceInPlace(this.sections, difference, undo);
    } catch (error) {
      while (undo.length) undo.pop()();
      throw error;
    }
  }

  get count() {
    return this.sections.reduce((n, s) => n + s.rows.length, 0);
  }

  sectionInfos() {
    return this.sections.map((s) => ({ name: s.name, indexTitle: s.indexTitle, numberOfObjects: s.rows.length }));
  }

  /** Index titles in section order, each once (protocol.md §9, controller/sectionIndexTitles). */
  sectionIndexTitles() {
    const titles = [];
    for (const s of this.sections) if (!titles.includes(s.indexTitle)) titles.push(s.indexTitle);
    return titles;
  }

  objectAt(indexPath) {
    const [s, r] = checked(indexPath, this.sections, false);
    return this.sections[s].rows[r];
  }

  indexPathOf(id) {
    for (let s = 0; s < this.sections.length; s++) {
      const r = this.sections[s].rows.findIndex((row) => row.id === id);
      if (r >= 0) return [s, r];
    }
    return null;
  }

  ids() {
    return this.sections.map((s) => s.rows.map((row) => row.id));
  }
}

function applyInPlace(work, batch, undo) {
  // Removals name OLD positions: each is checked against the row it names, then a section's
  // rows go in runs (one pass over a section that loses many, not a shift of its tail per row).
  const removals = new Map();
  for (const c of batch.objects) {
    if (c.type !== DELETE && c.type !== MOVE) continue;
    const [s, r] = checked(c.indexPath, work, false);
    expectId(work, s, r, c.id, 'removes');
    if (!removals.has(s)) removals.set(s, []);
    removals.get(s).push(r);
  }
  for (const s of [...removals.keys()].sort((a, b) => a - b)) removeRuns(work, s, removalRuns(s, removals.get(s)), undo);
  const deleted = batch.sections.filter((c) => c.type === DELETE).sort((a, b) => b.sectionIndex - a.sectionIndex);
  for (const c of deleted) {
    const index = c.sectionIndex;
    if (!(index >= 0 && index < work.length)) throw new MirrorError(`section delete at ${index}, but there are ${work.length} sections`);
    const left = work[index].rows.length;
    if (left) throw new MirrorError(`section delete at ${index} (${JSON.stringify(work[index].name)}) leaves ${left} rows unreported`);
    const [gone] = work.splice(index, 1);
    undo.push(() => work.splice(index, 0, gone));
  }
  const inserted = batch.sections.filter((c) => c.type === INSERT).sort((a, b) => a.sectionIndex - b.sectionIndex);
  for (const c of inserted) {
    const index = c.sectionIndex;
    if (!(index >= 0 && index <= work.length)) throw new MirrorError(`section insert at ${index}, but there are ${work.length} sections`);
    work.splice(index, 0, { name: c.section.name, indexTitle: c.section.indexTitle, rows: [] });
    undo.push(() => work.splice(index, 1));
  }
  // Additions name NEW positions, inserted as if one after another from the lowest:
  // consecutive ones are one run, and a section's runs go in one pass.
  const additions = new Map();
  const added = batch.objects.filter((c) => c.type === INSERT || c.type === MOVE);
  for (const c of added.sort((a, b) => comparePaths(a.newIndexPath, b.newIndexPath))) {
    const [s, r] = sectionOf(c.newIndexPath, work);
    let entry = additions.get(s);
    if (!entry) additions.set(s, (entry = { objects: [], runs: [] }));
    const last = entry.runs[entry.runs.length - 1];
    entry.objects.push({ ...c.row });
    if (last && last.row + last.count === r) last.count++;
    else entry.runs.push({ row: r, count: 1, objects: entry.objects, start: entry.objects.length - 1 });
  }
  for (const s of [...additions.keys()].sort((a, b) => a - b)) insertRuns(work, s, additions.get(s).runs, undo);
  for (const c of batch.objects.filter((o) => o.type === UPDATE)) {
    const [s, r] = checked(c.newIndexPath, work, false);
    expectId(work, s, r, c.id, 'updates');
    const rows = work[s].rows;
    const old = rows[r];
    rows[r] = { ...c.row };
    undo.push(() => (rows[r] = old));
  }
}

// A section that few short runs touch is spliced in place; otherwise it is rebuilt in one pass
// (each splice shifts the whole tail, and spreading a long run into splice overflows the stack).
const SPLICE_RUNS = 8;
const SPLICE_ROWS = 1000;
const spliceable = (runs) => runs.length <= SPLICE_RUNS && runs.every((r) => r.count <= SPLICE_ROWS);

const swap = (section, rows, undo) => {
  const old = section.rows;
  section.rows = rows;
  undo.push(() => (section.rows = old));
};

/** Throws unless `runs` ({row, count}, sorted by row) are non-overlapping runs of `rows`. */
function checkRemovals(s, rows, runs) {
  let end = 0;
  for (const { row, count } of runs) {
    if (row < end || count < 1 || row + count > rows.length) throw new MirrorError(`remove ${count} rows at [${s},${row}]: section ${s} has ${rows.length} rows`);
    end = row + count;
  }
}

/** Removes {row, count} runs of OLD rows (sorted by row, not overlapping) from section s. */
export function removeRuns(work, s, runs, undo) {
  const section = work[s];
  const rows = section.rows;
  checkRemovals(s, rows, runs);
  if (spliceable(runs)) {
    for (let i = runs.length - 1; i >= 0; i--) {
      const { row, count } = runs[i];
      const removed = rows.splice(row, count);
      undo.push(() => rows.splice(row, 0, ...removed));
    }
    return;
  }
  const kept = [];
  let from = 0;
  for (const { row, count } of runs) {
    for (let i = from; i < row; i++) kept.push(rows[i]);
    from = row + count;
  }
  for (let i = from; i < rows.length; i++) kept.push(rows[i]);
  swap(section, kept, undo);
}

/** Inserts {row, count, objects, start} runs (objects[start..start+count)) at NEW positions
 * (sorted by row) into section s, as if one after the other from the lowest. */
export function insertRuns(work, s, runs, undo) {
  const section = work[s];
  const rows = section.rows;
  if (spliceable(runs)) {
    for (const { row, count, objects, start } of runs) {
      if (!(row >= 0 && row <= rows.length)) throw new MirrorError(`insert at [${s},${row}]: section ${s} has ${rows.length} rows`);
      rows.splice(row, 0, ...objects.slice(start, start + count));
      undo.push(() => rows.splice(row, count));
    }
    return;
  }
  const out = [];
  let taken = 0;
  for (const { row, count, objects, start } of runs) {
    const take = row - out.length;
    if (take < 0 || taken + take > rows.length) throw new MirrorError(`insert at [${s},${row}]: section ${s} has ${rows.length} rows`);
    for (let i = 0; i < take; i++) out.push(rows[taken + i]);
    taken += take;
    for (let i = start; i < start + count; i++) out.push(objects[i]);
  }
  for (let i = taken; i < rows.length; i++) out.push(rows[i]);
  swap(section, out, undo);
}

/** removeRuns(removed) then insertRuns(added). When both would rebuild the section, one new
 * list is built from the kept spans of the old rows and the inserted rows, so each row is
 * copied once, not twice; otherwise (few short runs on either side) the two steps. */
export function replaceRuns(work, s, removed, added, undo) {
  if (spliceable(removed) || spliceable(added)) {
    if (removed.length) removeRuns(work, s, removed, undo);
    if (added.length) insertRuns(work, s, added, undo);
    return;
  }
  const section = work[s];
  const rows = section.rows;
  checkRemovals(s, rows, removed);
  let left = rows.length;
  for (const { count } of removed) left -= count;
  const out = [];
  // A cursor over the old rows that steps over the removed runs: `from` is the next old row,
  // `next` the next removed run (from <= its row).
  let from = 0;
  let next = 0;
  const keep = (take) => {
    while (take > 0 && from < rows.length) {
      if (next < removed.length && from === removed[next].row) {
        from += removed[next++].count;
        continue;
      }
      const stop = next < removed.length ? removed[next].row : rows.length;
      const n = Math.min(take, stop - from);
      for (let i = from; i < from + n; i++) out.push(rows[i]);
      from += n;
      take -= n;
    }
  };
  let taken = 0;
  for (const { row, count, objects, start } of added) {
    const take = row - out.length;
    if (take < 0 || taken + take > left) throw new MirrorError(`insert at [${s},${row}]: section ${s} has ${left} rows`);
    keep(take);
    taken += take;
    for (let i = start; i < start + count; i++) out.push(objects[i]);
  }
  keep(left - taken);
  swap(section, out, undo);
}

function applyDifferenceInPlace(work, diff, undo) {
  // The columns hold inserted rows, then moved, then updated.
  let at = 0;
  const additions = new Map();
  const removals = new Map();
  const add = (map, section, entry) => (map.get(section) ?? map.set(section, []).get(section)).push(entry);
  for (const [s, r, n] of diff.inserted) {
    add(additions, s, { row: r, count: n, objects: diff.rows(at, n), start: 0 });
    at += n;
  }
  for (const [s, r, n] of diff.deleted) add(removals, s, { row: r, count: n });
  // The moved rows' objects made in one call, not one call each.
  const moved = diff.rows(at, diff.moved.length);
  diff.moved.forEach(([os, or, ns, nr], i) => {
    add(removals, os, { row: or, count: 1 });
    add(additions, ns, { row: nr, count: 1, objects: moved, start: i });
  });
  at += diff.moved.length;
  const byRow = (a, b) => a.row - b.row;
  if (!diff.sectionsDeleted.length && !diff.sectionsInserted.length) {
    // Sections keep their indexes: each one's rows are rebuilt once, not twice.
    for (const s of [...new Set([...removals.keys(), ...additions.keys()])].sort((a, b) => a - b)) {
      if (!(s >= 0 && s < work.length)) throw new MirrorError(`rows changed in section ${s}, but there are ${work.length} sections`);
      replaceRuns(work, s, (removals.get(s) ?? []).sort(byRow), (additions.get(s) ?? []).sort(byRow), undo);
    }
    removals.clear();
    additions.clear();
  }
  for (const s of [...removals.keys()].sort((a, b) => b - a)) {
    if (!(s >= 0 && s < work.length)) throw new MirrorError(`rows removed from section ${s}, but there are ${work.length} sections`);
    removeRuns(work, s, removals.get(s).sort(byRow), undo);
  }
  for (const index of [...diff.sectionsDeleted].sort((a, b) => b - a)) {
    if (!(index >= 0 && index < work.length)) throw new MirrorError(`section delete at ${index}, but there are ${work.length} sections`);
    const left = work[index].rows.length;
    if (left) throw new MirrorError(`section delete at ${index} (${JSON.stringify(work[index].name)}) leaves ${left} rows unreported`);
    const [gone] = work.splice(index, 1);
    undo.push(() => work.splice(index, 0, gone));
  }
  for (const { index, section } of [...diff.sectionsInserted].sort((a, b) => a.index - b.index)) {
    if (!(index >= 0 && index <= work.length)) throw new MirrorError(`section insert at ${index}, but there are ${work.length} sections`);
    work.splice(index, 0, { name: section.name, indexTitle: section.indexTitle, rows: [] });
    undo.push(() => work.splice(index, 1));
  }
  for (const s of [...additions.keys()].sort((a, b) => a - b)) {
    if (!(s >= 0 && s < work.length)) throw new MirrorError(`rows inserted into section ${s}, but there are ${work.length} sections`);
    insertRuns(work, s, additions.get(s).sort(byRow), undo);
  }
  for (const [s, r, n] of diff.updated) {
    const objects = diff.rows(at, n);
    at += n;
    if (!(s >= 0 && s < work.length && r >= 0 && r + n <= work[s].rows.length)) throw new MirrorError(`update run [${s},${r},${n}] is outside the table`);
    const rows = work[s].rows;
    for (let k = 0; k < n; k++) {
      if (rows[r + k].id !== objects[k].id) throw new MirrorError(`row [${s},${r + k}] holds ${JSON.stringify(rows[r + k].id)}, the cycle updates ${JSON.stringify(objects[k].id)}`);
    }
    const old = rows.slice(r, r + n);
    for (let k = 0; k < n; k++) rows[r + k] = objects[k];
    undo.push(() => {
      for (let k = 0; k < n; k++) rows[r + k] = old[k];
    });
  }
  for (const { index, section } of diff.sectionsInserted) {
    const have = work[index].rows.length;
    if (have !== section.numberOfObjects) throw new MirrorError(`inserted section ${JSON.stringify(section.name)} has ${have} rows, not ${section.numberOfObjects}`);
  }
}

function expectId(work, s, r, id, verb) {
  const found = work[s].rows[r].id;
  if (found !== id) throw new MirrorError(`row [${s},${r}] holds ${JSON.stringify(found)}, the batch ${verb} ${JSON.stringify(id)}`);
}

/** Old rows (checked, any order) as sorted {row, count} runs of consecutive rows. */
function removalRuns(s, rows) {
  const runs = [];
  for (const r of rows.sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && last.row + last.count > r) throw new MirrorError(`row [${s},${r}] is removed twice in one cycle`);
    if (last && last.row + last.count === r) last.count++;
    else runs.push({ row: r, count: 1 });
  }
  return runs;
}

/** An insertion's new index path, its section checked (its row is checked as it goes in). */
function sectionOf(path, work) {
  if (!path) throw new MirrorError('missing index path');
  const [s, r] = path;
  if (!(s >= 0 && s < work.length)) throw new MirrorError(`index path [${s},${r}]: no section ${s} (there are ${work.length})`);
  return [s, r];
}

function checked(path, work, allowEnd) {
  if (!path) throw new MirrorError('missing index path');
  const [s, r] = path;
  if (!(s >= 0 && s < work.length)) throw new MirrorError(`index path [${s},${r}]: no section ${s} (there are ${work.length})`);
  const limit = work[s].rows.length + (allowEnd ? 1 : 0);
  if (!(r >= 0 && r < limit)) throw new MirrorError(`index path [${s},${r}]: section ${s} has ${work[s].rows.length} rows`);
  return [s, r];
}
