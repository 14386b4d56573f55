// The transport-free JSON-RPC core: numbers requests, frames messages, decodes incoming
// bytes into responses and notifications, and routes controller notifications by name.
import { FetchdError, ProtocolViolation } from './errors.js';
import { FRAMINGS, LSP, decoder, encode } from './framing.js';

/** Compact UTF-8 JSON; NaN and infinities are refused (JSON has no such numbers). */
export function dumps(value) {
  const text = JSON.stringify(value, (key, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new RangeError(`${v} cannot be sent as JSON (key ${JSON.stringify(key)})`);
    return v;
  });
  return Buffer.from(text, 'utf8');
}

export class ProtocolCore {
  constructor(framing = LSP) {
    if (!FRAMINGS.includes(framing)) throw new Error(`unknown framing ${JSON.stringify(framing)}`);
    this.framing = framing;
    this.decoder = decoder(framing);
    this.nextId = 1;
    this.targets = new Map();
    this.listeners = [];
  }

  requestObject(method, params) {
    const id = this.nextId++;
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined && params !== null) message.params = params;
    return { id, message };
  }

  /** A framed request and the id its response will carry. */
  request(method, params) {
    const { id, message } = this.requestObject(method, params);
    return { id, data: this.frame(message) };
  }

  notification(method, params) {
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined && params !== null) message.params = params;
    return this.frame(message);
  }

  /** One framed JSON-RPC batch: the server runs it as one change cycle. */
  batch(calls) {
    if (!calls.length) throw new Error('a JSON-RPC batch needs at least one call');
    const ids = [];
    const messages = calls.map(([method, params]) => {
      const { id, message } = this.requestObject(method, params);
      ids.push(id);
      return message;
    });
    return { ids, data: this.frame(messages) };
  }

  frame(message) {
    return encode(dumps(message), this.framing);
  }

  /** Decode bytes from the server into [{kind:'response', id, result|error} | {kind:'notification', method, params}]. */
  feed(data) {
    const out = [];
    for (const body of this.decoder.feed(data)) {
      let message;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch (error) {
        throw new ProtocolViolation(`server sent invalid JSON: ${error.message}: ${body.subarray(0, 200)}`);
      }
      if (Array.isArray(message)) {
        if (!message.length) throw new ProtocolViolation('server sent an empty batch');
        for (const element of message) out.push(classify(element));
      } else {
        out.push(classify(message));
      }
    }
    return out;
  }

  /** Route `name`'s notifications to `target`; returns the target it replaces (or undefined). */
  register(name, target) {
    const previous = this.targets.get(name);
    this.targets.set(name, target);
    return previous;
  }

  /** Stop routing `name`, or route it back to `restore` (after a failed create of a taken name). */
  unregister(name, restore) {
    if (restore) this.targets.set(name, restore);
    else this.targets.delete(name);
  }

  addListener(listener) {
    this.listeners.push(listener);
  }

  removeListener(listener) {
    this.listeners = this.listeners.filter((l) => l !== listener);
  }

  /** Listeners first (they see the raw stream), then the controller it belongs to. */
  dispatch(notification) {
    for (const listener of [...this.listeners]) listener(notification.method, notification.params);
    const name = notification.params.controller;
    if (notification.method.startsWith('controller/') && typeof name === 'string') {
      const target = this.targets.get(name);
      if (target) target.handleNotification(notification.method, notification.params);
    }
  }
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function classify(message) {
  const show = () => JSON.stringify(message);
  if (!isObject(message) || message.jsonrpc !== '2.0') throw new ProtocolViolation(`not a JSON-RPC 2.0 message: ${show()}`);
  if ('method' in message) {
    if ('id' in message) throw new ProtocolViolation(`fetchd sends no requests to clients: ${show()}`);
    const params = message.params ?? {};
    if (!isObject(params)) throw new ProtocolViolation(`notification params must be an object: ${show()}`);
    return { kind: 'notification', method: message.method, params };
  }
  if (!('id' in message)) throw new ProtocolViolation(`response without an id: ${show()}`);
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (hasResult === hasError) throw new ProtocolViolation(`a response needs exactly one of result/error: ${show()}`);
  if (hasError) {
    if (!isObject(message.error)) throw new ProtocolViolation(`error must be an object: ${show()}`);
    return { kind: 'response', id: message.id, error: FetchdError.fromObject(message.error) };
  }
  return { kind: 'response', id: message.id, result: message.result };
}
