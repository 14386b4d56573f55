#!/usr/bin/env node
// Client-side throughput against a real fetchd: round trips (sequential and pipelined),
// inserts with a live mirrored controller, one big batch.
// Usage: node tools/bench.js /path/to/fetchd [lsp|ndjson] [n]
import { Client, fetchRequest } from '../index.js';

const [binary, framing = 'lsp', count = '5000'] = process.argv.slice(2);
const n = Number(count);
const MODEL = { entities: [{ name: 'Item', attributes: { rank: { type: 'integer' }, name: { type: 'string' } } }] };

async function timed(label, action) {
  const start = process.hrtime.bigint();
  await action();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`${label.padEnd(58)} ${String(Math.round(n / seconds)).padStart(10)}/s  (${Math.round((seconds * 1e6) / n)} us each)`);
}

const client = Client.spawn(binary, { framing });
await client.openStore(MODEL);
const main = client.context();
await timed('round trip (context/count), sequential', async () => {
  for (let i = 0; i < n; i++) await main.count({ entity: 'Item' });
});
await timed('round trip (context/count), all pipelined', () => Promise.all(Array.from({ length: n }, () => main.count({ entity: 'Item' }))));
const items = await main.controller('items', fetchRequest('Item', { sortDescriptors: ['rank'] }));
await timed('insert + its cycle applied to the mirror (1 controller)', async () => {
  for (let i = 0; i < n; i++) await main.insert('Item', { rank: (i * 7919) % n, name: `i${i}` });
});
await timed(`inserts in one JSON-RPC batch of ${n} (one cycle)`, async () => {
  const batch = main.batch();
  for (let i = 0; i < n; i++) batch.insert('Item', { rank: i, name: `b${i}` });
  await batch.send();
});
const fresh = await items.fetched();
if (JSON.stringify(fresh) !== JSON.stringify(items.mirror.sections.map((s) => s.rows))) throw new Error('mirror differs from controller/rows');
console.log('mirror equals controller/rows');
await client.close();
