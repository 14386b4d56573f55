// Typed views of controller notifications and of one change cycle's batch.
import { ProtocolViolation } from './errors.js';

export const INSERT = 'insert';
export const DELETE = 'delete';
export const MOVE = 'move';
export const UPDATE = 'update';
const OBJECT_TYPES = [INSERT, DELETE, MOVE, UPDATE];
const SECTION_TYPES = [INSERT, DELETE];

/** NSFetchedResultsSectionInfo: {name, indexTitle, numberOfObjects}. */
export function sectionInfoFromWire(info) {
  if (!info || typeof info.name !== 'string' || typeof info.indexTitle !== 'string' || !Number.isInteger(info.numberOfObjects)) {
    throw new ProtocolViolation(`malformed SectionInfo: ${JSON.stringify(info)}`);
  }
  return { name: info.name, indexTitle: info.indexTitle, numberOfObjects: info.numberOfObjects };
}

export function sectionChangeFromWire(params) {
  if (!SECTION_TYPES.includes(params.type) || !Number.isInteger(params.sectionIndex)) {
    throw new ProtocolViolation(`malformed didChangeSection: ${JSON.stringify(params)}`);
  }
  return { type: params.type, sectionIndex: params.sectionIndex, section: sectionInfoFromWire(params.section) };
}

function indexPath(value, params) {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value) && value.length === 2 && value.every(Number.isInteger)) return [value[0], value[1]];
  throw new ProtocolViolation(`malformed index path ${JSON.stringify(value)} in ${JSON.stringify(params)}`);
}

/** {type, id, indexPath, newIndexPath, object, row}; `row` is what a table shows: the values,
 * or just {id} when the controller sends ids only (notify: {objects: false}). */
export function objectChangeFromWire(params) {
  if (!OBJECT_TYPES.includes(params.type) || typeof params.id !== 'string') {
    throw new ProtocolViolation(`malformed didChangeObject: ${JSON.stringify(params)}`);
  }
  const change = {
    type: params.type,
    id: params.id,
    indexPath: indexPath(params.indexPath, params),
    newIndexPath: indexPath(params.newIndexPath, params),
    object: params.object && typeof params.object === 'object' ? params.object : null,
  };
  const needsOld = change.type !== INSERT;
  const needsNew = change.type !== DELETE;
  if ((change.indexPath === null) === needsOld || (change.newIndexPath === null) === needsNew) {
    throw new ProtocolViolation(`didChangeObject ${change.type} with the wrong index paths: ${JSON.stringify(params)}`);
  }
  change.row = change.object ? { ...change.object } : { id: change.id };
  return change;
}

/** Everything one cycle reported for one controller, in wire order. */
export class ChangeBatch {
  constructor(sections = [], objects = []) {
    this.sections = sections;
    this.objects = objects;
  }

  /** How many changes of each kind, e.g. for a status line. */
  counts() {
    const out = {};
    for (const s of this.sections) out[`section-${s.type}`] = (out[`section-${s.type}`] ?? 0) + 1;
    for (const o of this.objects) out[o.type] = (out[o.type] ?? 0) + 1;
    return out;
  }
}

function tuples(value, width, member) {
  if (!Array.isArray(value)) throw new ProtocolViolation(`didChange ${member} is not an array`);
  for (const item of value) {
    if (!Array.isArray(item) || item.length !== width || !item.every(Number.isInteger)) {
      throw new ProtocolViolation(`didChange ${member}: malformed entry ${JSON.stringify(item)}`);
    }
  }
  return value;
}

/**
 * One controller/didChange (notify mode "difference", protocol.md §10.8): a whole cycle.
 * Runs are [section, row, count]; moves [oldSection, oldRow, newSection, newRow]; `ids` (and
 * `values`, one array per id in the order of `keys`) are the rows of `inserted`, then `moved`,
 * then `updated`.
 */
export class Difference {
  constructor(params) {
    const { sections, ids, keys = null, values = null } = params ?? {};
    if (!sections || !Array.isArray(sections.deleted) || !Array.isArray(sections.inserted) || !Array.isArray(ids) || (keys === null) !== (values === null)) {
      throw new ProtocolViolation(`malformed didChange: ${JSON.stringify(params).slice(0, 200)}`);
    }
    this.controller = params.controller;
    this.sectionsDeleted = sections.deleted;
    this.sectionsInserted = sections.inserted.map((s) => ({ index: s.index, section: sectionInfoFromWire(s.section) }));
    this.deleted = tuples(params.deleted, 3, 'deleted');
    this.inserted = tuples(params.inserted, 3, 'inserted');
    this.moved = tuples(params.moved, 4, 'moved');
    this.updated = tuples(params.updated, 3, 'updated');
    this.ids = ids;
    this.keys = keys;
    this.values = values;
    let rows = this.moved.length;
    for (const run of this.inserted) rows += run[2];
    for (const run of this.updated) rows += run[2];
    if (rows !== ids.length || (values !== null && values.length !== ids.length)) {
      throw new ProtocolViolation(`didChange: ${ids.length} ids for ${rows} rows`);
    }
  }

  /** Rows start..start+count of the columns as the objects rows mode carries ({id, key: value,
   * ...}; just {id} with objects: false). */
  rows(start, count) {
    const out = new Array(count);
    const { ids, keys, values } = this;
    for (let i = 0; i < count; i++) {
      const object = { id: ids[start + i] };
      if (keys) {
        const row = values[start + i];
        for (let k = 0; k < keys.length; k++) object[keys[k]] = row[k];
      }
      out[i] = object;
    }
    return out;
  }
}
