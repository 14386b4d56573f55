// Seed 002: a notes list ordered by last edit (newest first). Editing a note moves it to the
// top; when the last note is deleted the view shows its empty-state line (updateView in
// controllerDidChangeContent).
import { Client, fetchRequest } from '../index.js';
import { Steps, pad, render, runIfMain, stamp, verify } from './show.js';

export const MODEL = {
  entities: [
    {
      name: 'Note',
      attributes: { title: { type: 'string' }, contents: { type: 'string', optional: true }, updatedAt: { type: 'date' } },
    },
  ],
};
export const EMPTY = "You don't have any notes yet.";
const cell = (row) => `${pad(row.title, 14)} ${row.updatedAt}  ${row.contents ?? ''}`.trimEnd();

export async function run(binary, write) {
  const client = Client.spawn(binary);
  try {
    const steps = new Steps(client, write);
    await client.openStore(MODEL);
    const ctx = client.context();
    let showingMessage = true;
    const view = {
      // Like the seed's NotesViewController: after each batch, show the table or the message.
      didChangeContent(controller) {
        const hasNotes = controller.mirror.count > 0;
        if (!hasNotes && !showingMessage) steps.line(`  (updateView: message label shown: "${EMPTY}")`);
        if (hasNotes && showingMessage) steps.line('  (updateView: table view shown)');
        showingMessage = !hasNotes;
      },
    };
    const notes = await ctx.controller('notes', fetchRequest('Note', { sortDescriptors: ['-updatedAt'] }), { delegate: view });
    const show = async () => {
      await verify(notes);
      steps.table(render(notes, cell, { empty: EMPTY }));
    };
    steps.step('no notes');
    await show();
    const made = [];
    for (const [minute, title] of ['Groceries', 'Ideas', 'Packing list'].entries()) {
      steps.step(`create '${title}'`);
      made.push(await ctx.insert('Note', { title, updatedAt: stamp(minute) }));
      await show();
    }
    steps.step("edit 'Groceries' (moves to the top)");
    await ctx.update(made[0].id, { contents: 'milk, eggs', updatedAt: stamp(10) });
    await show();
    steps.step("rename 'Ideas' to 'Big ideas' (edited, so it moves to the top)");
    await ctx.update(made[1].id, { title: 'Big ideas', updatedAt: stamp(11) });
    await show();
    for (const note of made) {
      steps.step(`delete ${note.id}`);
      await ctx.delete(note.id);
      await show();
    }
  } finally {
    await client.close();
  }
}

runIfMain(import.meta, run);
