// Seed 000: a messages table that gains rows as messages are created. The delegate does what
// the seed's view controller does (beginUpdates / insertRows / reloadRows / deleteRows /
// endUpdates), printed as table-view calls.
import { Client, fetchRequest } from '../index.js';
import { Steps, render, runIfMain, stamp, verify } from './show.js';

export const MODEL = { entities: [{ name: 'Message', attributes: { text: { type: 'string' }, createdAt: { type: 'date' } } }] };
const cell = (row) => `${row.createdAt}  ${row.text}`;
const at = (p) => `[${p[0]},${p[1]}]`;

export async function run(binary, write) {
  const client = Client.spawn(binary);
  try {
    const steps = new Steps(client, write);
    const tableView = {
      willChangeContent: () => steps.line('  tableView.beginUpdates()'),
      didChangeSection: (c, info, index, type) => steps.line(`  tableView.${type === 'insert' ? 'insertSections' : 'deleteSections'}([${index}])`),
      didChangeObject(c, object, indexPath, type, newIndexPath) {
        if (type === 'insert') steps.line(`  tableView.insertRows(at: ${at(newIndexPath)})`);
        else if (type === 'delete') steps.line(`  tableView.deleteRows(at: ${at(indexPath)})`);
        else if (type === 'update') steps.line(`  tableView.reloadRows(at: ${at(indexPath)})`);
        else steps.line(`  tableView.deleteRows(at: ${at(indexPath)}); insertRows(at: ${at(newIndexPath)})`);
      },
      didChangeContent: () => steps.line('  tableView.endUpdates()'),
    };
    await client.openStore(MODEL);
    const ctx = client.context();
    const messages = await ctx.controller('messages', fetchRequest('Message', { sortDescriptors: ['createdAt'] }), { delegate: tableView });
    const show = async () => {
      await verify(messages);
      steps.table(render(messages, cell, { empty: 'no messages' }));
    };
    steps.step('no messages yet');
    await show();
    const made = [];
    for (const [minute, text] of ['Hola', '¿Qué tal?', 'Refrescar la tabla'].entries()) {
      steps.step(`create message '${text}'`);
      made.push(await ctx.insert('Message', { text, createdAt: stamp(minute) }));
      await ctx.save();
      await show();
    }
    steps.step('create two messages in one batch');
    const batch = ctx.batch();
    batch.insert('Message', { text: 'uno', createdAt: stamp(5) });
    batch.insert('Message', { text: 'dos', createdAt: stamp(6) });
    await batch.send();
    await show();
    steps.step('edit the first message (update)');
    await ctx.update(made[0].id, { text: 'Hola a todos' });
    await show();
    await ctx.save(); // the store is left as shown: nothing unsaved when fetchd closes
  } finally {
    await client.close();
  }
}

runIfMain(import.meta, run);
