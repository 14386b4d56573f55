// Shared by the tests against the real fetchd (FETCHD=/path/to/fetchd, else the build output).
import assert from 'node:assert/strict';
import { findFetchd } from '../index.js';

/** The real fetchd; a missing binary fails the test (server tests are never skipped). */
export function fetchdBinary() {
  return findFetchd();
}

export const CONTACTS = {
  entities: [
    {
      name: 'Contact',
      attributes: {
        name: { type: 'string' },
        initial: { type: 'string' },
        age: { type: 'integer', default: 0 },
        phone: { type: 'string', optional: true },
      },
    },
  ],
};

export const NOTES = {
  entities: [{ name: 'Note', attributes: { title: { type: 'string' }, contents: { type: 'string', optional: true }, updatedAt: { type: 'date' } } }],
};

export const stamp = (minute) => `2026-01-01T${String(10 + Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00Z`;

export const events = (controller) => controller.lastBatch.objects.map((c) => [c.type, c.id, c.indexPath, c.newIndexPath]);

/** The mirror must equal a fresh controller/rows (ids and values) and section infos. */
export async function checkMirror(controller) {
  const infos = await controller.sections();
  const keys = controller.notify?.keys;
  const fresh = [];
  for (let i = 0; i < infos.length; i++) fresh.push(infos[i].numberOfObjects ? await controller.rows(i, { keys }) : []);
  assert.deepEqual(controller.mirror.sectionInfos(), infos);
  assert.deepEqual(controller.mirror.sections.map((s) => s.rows), fresh);
}
