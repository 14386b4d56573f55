// Seed 001: a contacts book sectioned by initial with an index bar. Contacts are added,
// edited (an update), renamed to another initial (a move across sections: one section goes,
// another comes) and deleted; each step prints its notifications and the table.
import { Client, fetchRequest } from '../index.js';
import { Steps, pad, render, runIfMain, verify } from './show.js';

export const MODEL = {
  entities: [
    {
      name: 'Contact',
      attributes: {
        name: { type: 'string' },
        phone: { type: 'string', optional: true },
        sectionName: { type: 'string' }, // as in the seed: the name's initial, uppercased
      },
    },
  ],
};
export const REQUEST = fetchRequest('Contact', { sortDescriptors: ['sectionName', 'name'] });
export const sectionName = (name) => name.slice(0, 1).toUpperCase();
const cell = (row) => `${pad(row.name, 8)} ${row.phone ?? ''}`.trimEnd();

export async function run(binary, write) {
  const client = Client.spawn(binary);
  try {
    const steps = new Steps(client, write);
    await client.openStore(MODEL);
    const book = client.context();
    const contacts = await book.controller('contacts', REQUEST, { sectionNameKeyPath: 'sectionName' });
    const show = async () => {
      await verify(contacts);
      steps.table(render(contacts, cell, { empty: 'no contacts', indexBar: true }));
    };
    steps.step('empty book');
    await show();
    const people = {};
    for (const [name, phone] of [['Ana', '555-0101'], ['Bob', '555-0102'], ['Carla', '555-0103'], ['Ben', null]]) {
      steps.step(`add ${name}`);
      people[name] = await book.insert('Contact', { name, phone, sectionName: sectionName(name) });
      await book.save();
      await show();
    }
    steps.step("edit Bob's phone (update)");
    await book.update(people.Bob.id, { phone: '555-0199' });
    await show();
    steps.step('rename Ana to Zoe (moves to section Z; section A goes)');
    await book.update(people.Ana.id, { name: 'Zoe', sectionName: 'Z' });
    await show();
    steps.step('delete Carla (section C goes)');
    await book.delete(people.Carla.id);
    await book.save();
    await show();
    steps.line(`\nindex bar tap 'Z' -> section ${await contacts.sectionForIndexTitle('Z', 1)}`);
  } finally {
    await client.close();
  }
}

runIfMain(import.meta, run);
