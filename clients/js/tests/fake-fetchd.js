#!/usr/bin/env node
// A scripted JSON-RPC peer for testing the client's transport without the real server.
// It is not fetchd: it answers test/echo (result = params), test/fail (an error from params),
// test/cycle (writes params.notifications, then answers params.result), shutdown/exit, and
// otherwise replays FAKE_FETCHD_SCRIPT (a JSON file: [{method, notifications?, result?|error?}]
// consumed in order). A batch writes every element's notifications, then the responses.
// initialize is answered as fetchd does (refused unless first, and once), with the
// protocolVersion FAKE_FETCHD_PROTOCOL (default 1; "none" leaves it out). FAKE_FETCHD_LOG: a
// file that gets every message received as a line of JSON.
import { appendFileSync, readFileSync } from 'node:fs';
import { LSPDecoder, NDJSONDecoder, encode } from '../src/framing.js';

const at = process.argv.indexOf('--framing');
const framing = at >= 0 ? process.argv[at + 1] : 'lsp';
const script = process.env.FAKE_FETCHD_SCRIPT ? JSON.parse(readFileSync(process.env.FAKE_FETCHD_SCRIPT, 'utf8')) : [];
const decoder = framing === 'lsp' ? new LSPDecoder() : new NDJSONDecoder();
const write = (message) => process.stdout.write(encode(Buffer.from(JSON.stringify(message)), framing));
const protocol = process.env.FAKE_FETCHD_PROTOCOL ?? '1';
let requests = 0;
let initialized = false;

function initialize() {
  if (initialized) return { error: { code: -32600, message: 'Invalid Request', data: { kind: 'alreadyInitialized' } } };
  if (requests > 1) return { error: { code: -32600, message: 'Invalid Request', data: { kind: 'initializeNotFirst' } } };
  initialized = true;
  const result = { serverInfo: { name: 'fetchd', version: '0.0.0-fake' }, capabilities: {} };
  if (protocol !== 'none') result.protocolVersion = Number(protocol);
  return { result };
}

function answer(request) {
  const { method, id } = request;
  const params = request.params ?? {};
  let notes = [];
  const reply = { jsonrpc: '2.0', id };
  if (process.env.FAKE_FETCHD_LOG) appendFileSync(process.env.FAKE_FETCHD_LOG, `${JSON.stringify(request)}\n`);
  if ('id' in request) requests += 1;
  if (method === 'initialize') Object.assign(reply, initialize());
  else if (method === 'test/echo') reply.result = params;
  else if (method === 'test/fail') reply.error = { code: params.code, message: params.message, data: params.data };
  else if (method === 'test/cycle') {
    notes = params.notifications ?? [];
    reply.result = params.result ?? {};
  } else if (method === 'shutdown') reply.result = null;
  else if (method === 'exit') process.exit(0);
  else if (script.length) {
    const step = script.shift();
    if (step.method !== method) reply.error = { code: -32099, message: `script expected ${step.method}, got ${method}` };
    else {
      notes = step.notifications ?? [];
      if (step.error) reply.error = step.error;
      else reply.result = step.result ?? {};
    }
  } else reply.error = { code: -32601, message: 'Method not found', data: { kind: 'methodNotFound', method } };
  return { notes: notes.map((n) => ({ jsonrpc: '2.0', method: n.method, params: n.params })), reply: 'id' in request ? reply : null };
}

process.stdin.on('data', (chunk) => {
  for (const body of decoder.feed(chunk)) {
    const message = JSON.parse(body.toString('utf8'));
    if (Array.isArray(message)) {
      const replies = [];
      for (const element of message) {
        const { notes, reply } = answer(element);
        notes.forEach(write);
        if (reply) replies.push(reply);
      }
      if (replies.length) write(replies);
    } else {
      const { notes, reply } = answer(message);
      notes.forEach(write);
      if (reply) write(reply);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
