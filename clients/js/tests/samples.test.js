// Every JS sample runs, verifies its mirror after each step and prints what its seed
// describes, against the real fetchd.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { run as contacts } from '../samples/contacts.js';
import { run as conversations } from '../samples/conversations.js';
import { run as messages } from '../samples/messages.js';
import { run as notes } from '../samples/notes.js';
import { fetchdBinary } from './helpers.js';

async function output(run, binary) {
  const lines = [];
  await run(binary, (text) => lines.push(text));
  return lines.join('\n');
}

for (const [label, binary] of [['fetchd', () => fetchdBinary()]]) {
  test(`samples (${label}): contacts has sections, an index bar and a cross-section move`, async () => {
    const text = await output(contacts, binary());
    assert.match(text, /index: A B C/);
    assert.match(text, /didChangeSection delete #0 'A'/);
    assert.match(text, /didChangeObject move/);
    assert.match(text, /index: B Z/);
    assert.match(text, /index bar tap 'Z' -> section 1$/);
  });

  test(`samples (${label}): notes move to the top and show the empty state at the end`, async () => {
    const text = await output(notes, binary());
    assert.match(text, /didChangeObject move/);
    const tail = text.split('== delete').at(-1);
    assert.match(tail, /You don't have any notes yet\./);
    assert.match(tail, /message label shown/);
  });

  test(`samples (${label}): a message moves its conversation to the top in one cycle`, async () => {
    const text = await output(conversations, binary());
    const step = text.split("== Carol: 'Hi all'")[1].split('==')[0];
    assert.equal(step.split('willChangeContent').length - 1, 1);
    assert.match(step, /didChangeObject move/);
  });

  test(`samples (${label}): messages gain rows`, async () => {
    const text = await output(messages, binary());
    assert.equal(text.split('tableView.insertRows').length - 1, 5);
    assert.match(text, /tableView\.reloadRows\(at: \[0,0\]\)/);
  });

  test(`samples (${label}): a sample runs as a script`, async () => {
    const script = fileURLToPath(new URL('../samples/notes.js', import.meta.url));
    const stdout = await new Promise((resolve, reject) =>
      execFile(process.execPath, [script, '--fetchd', binary()], { timeout: 60000 }, (error, out) => (error ? reject(error) : resolve(out))),
    );
    assert.match(stdout, /== no notes/);
  });

  // A new user runs a sample and sees no warning: each leaves nothing unsaved when it closes.
  for (const name of ['contacts', 'conversations', 'messages', 'notes']) {
    test(`samples (${label}): ${name} writes nothing to stderr`, async () => {
      const script = fileURLToPath(new URL(`../samples/${name}.js`, import.meta.url));
      const stderr = await new Promise((resolve, reject) =>
        execFile(process.execPath, [script, '--fetchd', binary()], { timeout: 60000 }, (error, _out, err) => (error ? reject(error) : resolve(err))),
      );
      assert.equal(stderr, '');
    });
  }
}
