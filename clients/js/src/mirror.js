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
  const deleteRow = (s, r) => {
    const rows = work[s].rows;
    const [value] = rows.splice(r, 1);
    undo.push(() => rows.splice(r, 0, value));
  };
  const insertRow = (s, r, value) => {
    const rows = work[s].rows;
    rows.splice(r, 0, value);
    undo.push(() => rows.splice(r, 1));
  };
  const removals = batch.objects.filter((c) => c.type === DELETE || c.type === MOVE);
  for (const c of removals.sort((a, b) => comparePaths(b.indexPath, a.indexPath))) {
    const [s, r] = checked(c.indexPath, work, false);
    expectId(work, s, r, c.id, 'removes');
    deleteRow(s, r);
  }
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
  const additions = batch.objects.filter((c) => c.type === INSERT || c.type === MOVE);
  for (const c of additions.sort((a, b) => comparePaths(a.newIndexPath, b.newIndexPath))) {
    const [s, r] = checked(c.newIndexPath, work, true);
    insertRow(s, r, { ...c.row });
  }
  for (const c of batch.objects.filter((o) => o.type === UPDATE)) {
    const [s, r] = checked(c.newIndexPath, work, false);
    expectId(work, s, r, c.id, 'updates');
    const rows = work[s].rows;
    const old = rows[r];
    rows[r] = { ...c.row };
    undo.push(() => (rows[r] = old));
  }
}

function expectId(work, s, r, id, verb) {
  const found = work[s].rows[r].id;
  if (found !== id) throw new MirrorError(`row [${s},${r}] holds ${JSON.stringify(found)}, the batch ${verb} ${JSON.stringify(id)}`);
}

function checked(path, work, allowEnd) {
  if (!path) throw new MirrorError('missing index path');
  const [s, r] = path;
  if (!(s >= 0 && s < work.length)) throw new MirrorError(`index path [${s},${r}]: no section ${s} (there are ${work.length})`);
  const limit = work[s].rows.length + (allowEnd ? 1 : 0);
  if (!(r >= 0 && r < limit)) throw new MirrorError(`index path [${s},${r}]: section ${s} has ${work[s].rows.length} rows`);
  return [s, r];
}
