// Seed 003: conversations ordered by last message time (newest first). Sending a message is
// one JSON-RPC batch (insert the Message, bump the Conversation's lastMessageTime): one change
// cycle, so the conversation moves to the top in a single batch of notifications.
import { Client, fetchRequest } from '../index.js';
import { Steps, pad, render, runIfMain, stamp, verify } from './show.js';

export const MODEL = {
  entities: [
    {
      name: 'Conversation',
      attributes: { title: { type: 'string' }, lastMessageTime: { type: 'date' } },
      relationships: { messages: { destination: 'Message', toMany: true, inverse: 'conversation', deleteRule: 'cascade' } },
    },
    {
      name: 'Message',
      attributes: { text: { type: 'string' }, time: { type: 'date' } },
      relationships: { conversation: { destination: 'Conversation', toMany: false, inverse: 'messages', deleteRule: 'nullify' } },
    },
  ],
};
const cell = (row) => `${pad(row.title, 10)} last message ${row.lastMessageTime}`;

export async function run(binary, write) {
  const client = Client.spawn(binary);
  try {
    const steps = new Steps(client, write);
    await client.openStore(MODEL);
    const moc = client.context();
    const conversations = await moc.controller('conversations', fetchRequest('Conversation', { sortDescriptors: ['-lastMessageTime'] }), {
      notify: { keys: ['title', 'lastMessageTime'] },
    });
    const show = async () => {
      await verify(conversations);
      steps.table(render(conversations, cell, { empty: 'no conversations' }));
    };
    const people = {};
    for (const [minute, title] of ['Alice', 'Bob', 'Carol'].entries()) {
      steps.step(`start a conversation with ${title}`);
      people[title] = await moc.insert('Conversation', { title, lastMessageTime: stamp(minute) });
      await show();
    }
    let clock = 10;
    for (const [title, text] of [['Alice', 'Lunch?'], ['Bob', 'Sure'], ['Alice', '12:30 then'], ['Carol', 'Hi all']]) {
      clock += 1;
      steps.step(`${title}: '${text}' (one batch: insert Message + update Conversation)`);
      const batch = moc.batch();
      batch.insert('Message', { text, time: stamp(clock), conversation: people[title].id });
      batch.update(people[title].id, { lastMessageTime: stamp(clock) });
      await batch.send();
      await show();
    }
    steps.step('delete the conversation with Bob (its messages cascade)');
    await moc.delete(people.Bob.id);
    await moc.save();
    await show();
  } finally {
    await client.close();
  }
}

runIfMain(import.meta, run);
