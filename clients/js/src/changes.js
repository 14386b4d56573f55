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
