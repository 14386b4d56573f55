// The client: promise-based requests, EventEmitter notifications. Notifications are
// dispatched as they arrive, so all of a cycle's delegate calls and events happen before the
// promise of the request that caused the cycle resolves.
import { spawn as spawnProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { wire } from './calls.js';
import { sectionInfoFromWire } from './changes.js';
import { Batch, Context } from './context.js';
import { Controller } from './controller.js';
import { ConnectionClosed, FetchdError, ProtocolVersionMismatch } from './errors.js';
import { LSP } from './framing.js';
import { findFetchd } from './locate.js';
import { ProtocolCore } from './protocol.js';
import { CLIENT_INFO, PROTOCOL_VERSION } from './version.js';

const END = Symbol('end of input');

/**
 * Events: 'notification' (method, params) for every notification, then one event named after
 * the method (e.g. 'controller/didChangeObject') with params; 'close' (exit code or null).
 */
export class Client extends EventEmitter {
  // Messages written while an `initialize` is unanswered wait here (Buffers, or END for the
  // end of input): fetchd sees none of them unless its protocol version is ours.
  #held = null;
  #initializing = null;

  /**
   * Attach to streams: `readable` carries the server's output, `writable` its input. Sends no
   * `initialize` of its own (`ready` is resolved to null); `binary` only names the server in
   * errors.
   */
  constructor(readable, writable, { framing = LSP, process = null, binary = null } = {}) {
    super();
    this.core = new ProtocolCore(framing);
    this.process = process;
    this.binary = binary;
    this.readable = readable;
    this.writable = writable;
    this.pending = new Map();
    this.handlerError = null;
    this.closed = false;
    this.failure = null;
    this.ready = Promise.resolve(null);
    this.core.addListener((method, params) => {
      this.emit('notification', method, params);
      this.emit(method, params);
    });
    readable.on('data', (chunk) => this.#receive(chunk));
    readable.on('end', () => this.#fail(new ConnectionClosed('fetchd closed its output')));
    readable.on('error', (error) => this.#fail(new ConnectionClosed(`reading from fetchd failed: ${error.message}`)));
    writable.on('error', () => {}); // EPIPE surfaces as ConnectionClosed on the pending calls
    this.exited = process
      ? new Promise((resolve) => {
          let done = false;
          const exited = (code) => {
            if (done) return; // 'exit' may follow 'error' (Node's docs): report once
            done = true;
            this.emit('close', code);
            resolve(code);
          };
          process.once('exit', (code, signal) => exited(code ?? signal));
          // A process that could not be started (ENOENT, EACCES) emits 'error' and no 'exit';
          // unhandled, that 'error' would end node. Its calls reject instead.
          process.on('error', (error) => {
            if (process.pid !== undefined) return; // a started process: 'exit' reports it
            this.#fail(new ConnectionClosed(`could not start fetchd${binary ? ` at ${binary}` : ''}: ${error.message}`, { cause: error }));
            exited(null);
          });
        })
      : Promise.resolve(null);
  }

  /**
   * Start fetchd (see findFetchd) and attach to it. `stderr`: 'inherit' (default) | 'ignore' |
   * 'pipe'. Unless `initialize: false`, `initialize` (with `clientInfo`) is sent first and
   * `ready` resolves to its result once the protocol version is checked; requests made before
   * that are sent after it. A failed check fails the client: `ready` and every request reject
   * with the error (ProtocolVersionMismatch for another protocol version).
   */
  static spawn(binary, { framing = LSP, args = [], stderr = 'inherit', env, initialize = true, clientInfo } = {}) {
    const path = findFetchd(binary);
    const child = spawnProcess(path, ['--framing', framing, ...args], { stdio: ['pipe', 'pipe', stderr], env: env ?? process.env });
    const client = new Client(child.stdout, child.stdin, { framing, process: child, binary: path });
    if (initialize) {
      client.ready = client.#handshake(clientInfo ?? CLIENT_INFO, { failClient: true });
      // Handled here so a client nobody awaits `ready` on does not end node; the error stays
      // on `ready` and on every later request.
      client.ready.catch(() => {});
    }
    return client;
  }

  // -- raw JSON-RPC ------------------------------------------------------------------------
  /** Resolves to the result, or rejects with FetchdError. */
  request(method, params) {
    let id;
    try {
      const framed = this.core.request(method, params);
      id = framed.id;
      const promise = this.#expect(id);
      this.#write(framed.data);
      return promise.then((response) => {
        if (response.error) throw response.error;
        return response.result;
      });
    } catch (error) {
      this.pending.delete(id);
      return Promise.reject(error);
    }
  }

  notify(method, params) {
    this.#write(this.core.notification(method, params));
  }

  /** Send a JSON-RPC batch (one change cycle); resolves to the responses in call order. */
  sendBatch(batchCalls) {
    let ids = [];
    try {
      const framed = this.core.batch(batchCalls);
      ids = framed.ids;
      const promises = ids.map((id) => this.#expect(id));
      this.#write(framed.data);
      return Promise.all(promises);
    } catch (error) {
      for (const id of ids) this.pending.delete(id);
      return Promise.reject(error);
    }
  }

  // -- lifecycle ---------------------------------------------------------------------------
  /** rpc.discover: the server's OpenRPC document. */
  discover() {
    return this.request(...wire('rpc.discover'));
  }

  ping() {
    return this.request(...wire('server/ping'));
  }

  /** server/echo: `value` as fetchd reads and writes it. */
  echo(value) {
    return this.request(...wire('server/echo', { value }));
  }

  /**
   * `initialize`, then the protocol version check: rejects with ProtocolVersionMismatch (and
   * fails the client) when fetchd's protocolVersion is not PROTOCOL_VERSION. fetchd takes one
   * `initialize` per connection, as its first request: a second call returns the first call's
   * promise (the one `spawn` sent, by default), unless that one was refused.
   */
  initialize(clientInfo = CLIENT_INFO) {
    return this.#initializing ?? this.#handshake(clientInfo, { failClient: false });
  }

  /** `shutdown` then `exit`; resolves to the exit code when we spawned the process. */
  async shutdown() {
    await this.request(...wire('shutdown'));
    this.notify('exit');
    return this.close();
  }

  /** Close the server's input (EOF: it finishes and exits 0); resolves to its exit code. */
  async close(timeoutMs = 10000) {
    this.#endInput();
    if (!this.process) return null;
    let timer;
    const timeout = new Promise((resolve) => {
      timer = setTimeout(() => {
        this.process.kill('SIGKILL');
        resolve('killed');
      }, timeoutMs);
    });
    const code = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    return code === 'killed' ? this.exited : code;
  }

  // -- store, contexts, controllers ----------------------------------------------------------
  /**
   * store/open. options: {historyToken} (merging resumes after it, protocol.md §5), {url,
   * schema} (a PostgreSQL server instead of the file `path`). Without a model (null or
   * undefined) an existing store opens with the model it records.
   */
  openStore(model, path, { historyToken, url, schema, workDoneToken } = {}) {
    return this.request(...wire('store/open', { model, path, url, schema, historyToken, workDoneToken }));
  }

  context(name = 'main') {
    return new Context(this, name);
  }

  /**
   * store/checkExternalChanges: merges other processes' commits now; their notifications
   * (controllers, then 'store/didChangeExternally') are emitted before it resolves. A
   * watching fetchd also sends them on its own, between responses (protocol.md §1.5).
   */
  checkExternalChanges() {
    return this.request(...wire('store/checkExternalChanges'));
  }

  historyToken() {
    return this.request(...wire('store/historyToken'));
  }

  /** store/history. options: {limit, authors, entities}. */
  history(after, { limit, authors, entities } = {}) {
    return this.request(...wire('store/history', { after, limit, authors, entities }));
  }

  /** store/purgeHistory. options: {force}: also what a live reader has not merged. */
  purgeHistory(before, { force } = {}) {
    return this.request(...wire('store/purgeHistory', { before, force }));
  }

  /**
   * store/batchInsert: one transaction; every merging context takes it as one change cycle
   * (protocol.md §5 "Batch requests"). options: {objects} (one values object per row) and/or
   * the columnar {keys, rows}; {returnIds}.
   */
  batchInsert(entity, { objects, keys, rows, returnIds, more, workDoneToken } = {}) {
    return this.request(...wire('store/batchInsert', { entity, objects, keys, rows, returnIds, more, workDoneToken }));
  }

  /** store/cancelBatchInsert: drops the rows held for an insert sent in parts; resolves to {count}. */
  cancelBatchInsert(entity) {
    return this.request(...wire('store/cancelBatchInsert', { entity }));
  }

  /**
   * store/batchInsert of `rows` (columnar, in `keys` order) sent in parts of about `partBytes`
   * encoded bytes (`more`, protocol.md §5): one transaction and one change cycle, as a single
   * request would be, but no message holds every row, and each part is encoded while fetchd
   * reads the one before. The first part (10,000 rows) sets how many rows the next ones take.
   * A part fetchd refuses rejects with its FetchdError, and fetchd then holds nothing.
   */
  async batchInsertInParts(entity, keys, rows, { partBytes = 16 << 20, returnIds } = {}) {
    if (!(partBytes >= 1)) throw new RangeError('partBytes must be at least 1');
    let size = 10000;
    let start = 0;
    let previous = null;
    for (;;) {
      const part = rows.slice(start, start + size);
      start += part.length;
      const more = start < rows.length;
      const params = { entity, keys, rows: part, returnIds: more ? undefined : returnIds, more: more || undefined };
      const framed = this.core.request(...wire('store/batchInsert', params));
      // The part before, answered while this one was encoded.
      if (previous) await previous;
      const answer = this.#expect(framed.id).then((response) => {
        if (response.error) throw response.error;
        return response.result;
      });
      this.#write(framed.data);
      if (!more) return answer;
      previous = answer;
      size = Math.max(1, Math.floor((part.length * partBytes) / Math.max(1, framed.data.length)));
    }
  }

  /** store/batchUpdate: `values` on every saved object the predicate matches. options: {predicate, variables}. */
  batchUpdate(entity, values, { predicate, variables, workDoneToken } = {}) {
    return this.request(...wire('store/batchUpdate', { entity, values, predicate, variables, workDoneToken }));
  }

  /** store/batchUpdateObjects: each saved object its own values. options: {objects} (each with its id), {ids, keys, rows}. */
  batchUpdateObjects(entity, { objects, ids, keys, rows, workDoneToken } = {}) {
    return this.request(...wire('store/batchUpdateObjects', { entity, objects, ids, keys, rows, workDoneToken }));
  }

  /** store/batchDelete, with the delete rules. options: {ids, predicate, variables}. */
  batchDelete(entity, { ids, predicate, variables, workDoneToken } = {}) {
    return this.request(...wire('store/batchDelete', { entity, ids, predicate, variables, workDoneToken }));
  }

  /** context/create. options: {parent, mergesChangesFromParent, mergePolicy, transactionAuthor}. */
  async createContext(name, { parent, mergesChangesFromParent, mergePolicy, transactionAuthor, undo } = {}) {
    const result = await this.request(
      ...wire('context/create', { name, parent, mergesChangesFromParent, mergePolicy, transactionAuthor, undo }),
    );
    return new Context(this, result?.context ?? name);
  }

  /**
   * controller/create. options: {sectionNameKeyPath, notify, mode, delegate, mirror = true};
   * mode "difference" (or notify.mode) sends one controller/didChange per cycle.
   * With a mirror, the rows are loaded now and kept in sync by every cycle.
   */
  async controller(context, name, request, options = {}) {
    const contextName = typeof context === 'string' ? context : context.name;
    const controller = new Controller(this, contextName, name, request, options);
    const previous = this.core.register(name, controller);
    try {
      const { sectionNameKeyPath, workDoneToken } = options;
      const notify = controller.notify ?? undefined;
      const result = await this.request(
        ...wire('controller/create', { context: contextName, name, request, sectionNameKeyPath, notify, workDoneToken }),
      );
      await controller._created(result.sections.map(sectionInfoFromWire));
    } catch (error) {
      this.core.unregister(name, previous);
      throw error;
    }
    return controller;
  }

  batch(context = 'main') {
    return new Batch(this, typeof context === 'string' || context === null ? context : context.name);
  }

  // -- initialize --------------------------------------------------------------------------
  /**
   * Sends `initialize` and holds every later message until its answer: released when the
   * protocol version is ours, dropped with the client failed when it is not. `failClient`:
   * any other failure (a refused initialize, a lost connection) fails the client too.
   */
  #handshake(clientInfo, { failClient }) {
    const answer = this.request(...wire('initialize', { clientInfo }));
    this.#held ??= [];
    const checked = answer.then(
      (result) => {
        const served = Number.isInteger(result?.protocolVersion) ? result.protocolVersion : null;
        if (served !== PROTOCOL_VERSION) {
          throw new ProtocolVersionMismatch({
            binary: this.binary,
            serverInfo: result?.serverInfo,
            serverProtocolVersion: served,
            clientInfo: CLIENT_INFO,
            clientProtocolVersion: PROTOCOL_VERSION,
          });
        }
        this.#release();
        return result;
      },
      (error) => {
        if (failClient || !(error instanceof FetchdError)) throw error;
        // fetchd refused this initialize (say, not first): the caller decides; it may retry.
        this.#initializing = null;
        this.#release();
        throw error;
      },
    );
    this.#initializing = checked.catch((error) => {
      if (error instanceof ProtocolVersionMismatch || failClient || !(error instanceof FetchdError)) {
        this.#fail(error);
        this.#held = null;
        this.#endInput(); // fetchd sees EOF and exits; close() still waits for it
      }
      throw error;
    });
    return this.#initializing;
  }

  #release() {
    const held = this.#held ?? [];
    this.#held = null;
    for (const data of held) {
      if (data === END) this.writable.end();
      else this.writable.write(data);
    }
  }

  // -- I/O ---------------------------------------------------------------------------------
  #expect(id) {
    if (this.failure) throw this.failure;
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  #write(data) {
    if (this.failure) throw this.failure;
    if (this.closed) throw new ConnectionClosed('the client is closed');
    if (this.#held) this.#held.push(data);
    else this.writable.write(data);
  }

  #endInput() {
    if (this.closed) return;
    this.closed = true;
    if (this.#held) this.#held.push(END);
    else this.writable.end();
  }

  #receive(chunk) {
    let messages;
    try {
      messages = this.core.feed(chunk);
    } catch (error) {
      this.#fail(error);
      return;
    }
    for (const message of messages) {
      if (message.kind === 'notification') {
        try {
          this.core.dispatch(message);
        } catch (error) {
          this.handlerError ??= error; // handed to the response that closes the cycle
        }
      } else {
        this.#resolve(message);
      }
    }
  }

  #resolve(response) {
    const waiter = this.pending.get(response.id);
    if (!waiter) return;
    this.pending.delete(response.id);
    if (this.handlerError) {
      const error = this.handlerError;
      this.handlerError = null;
      waiter.reject(error);
    } else {
      waiter.resolve(response);
    }
  }

  #fail(error) {
    if (this.failure) return;
    this.failure = error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
