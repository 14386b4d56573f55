// controller/setRequest against the real fetchd: each change reaches the mirror as one cycle.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, fetchRequest } from '../index.js';
import { CONTACTS, checkMirror, fetchdBinary } from './helpers.js';

test('setRequest: keystrokes, a new sort and sections reach the mirror without a reload', async () => {
  const client = Client.spawn(fetchdBinary());
  try {
    await client.openStore(CONTACTS);
    const main = client.context();
    for (const name of ['Ana', 'Anton', 'Al', 'Bo', 'Bea', 'Cy']) await main.insert('Contact', { name, initial: name[0] });
    await main.save();
    const people = await main.controller('people', fetchRequest('Contact', { sortDescriptors: ['name'] }));
    for (const prefix of ['A', 'An', 'Ant', '']) {
      const predicate = prefix ? `name BEGINSWITH "${prefix}"` : undefined;
      await people.setRequest({ request: fetchRequest('Contact', { predicate, sortDescriptors: ['name'] }) });
      await checkMirror(people);
    }
    const sections = await people.setRequest({ sectionNameKeyPath: 'initial' });
    assert.deepEqual(sections.map((s) => s.name), ['A', 'B', 'C']);
    await checkMirror(people);
    await people.setRequest({ request: fetchRequest('Contact', { sortDescriptors: ['-name'], fetchLimit: 4 }), sectionNameKeyPath: null });
    assert.equal(people.sectionNameKeyPath, null);
    await checkMirror(people);
    assert.deepEqual(people.mirror.ids(), [await main.fetch(fetchRequest('Contact', { sortDescriptors: ['-name'], fetchLimit: 4 })).then((os) => os.map((o) => o.id))]);
  } finally {
    assert.equal(await client.close(), 0);
  }
});
