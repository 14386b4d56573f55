// Context handles and JSON-RPC batches (one batch = one change cycle on the server).
import { wire } from './calls.js';

export class Context {
  constructor(client, name) {
    this.client = client;
    this.name = name;
  }

  async insert(entity, values = {}) {
    return (await this.client.request(...wire('context/insert', { context: this.name, entity, values: { ...values } }))).object;
  }

  async update(id, values) {
    return (await this.client.request(...wire('context/update', { context: this.name, id, values: { ...values } }))).object;
  }

  async delete(id) {
    await this.client.request(...wire('context/delete', { context: this.name, id }));
  }

  async get(ids, keys) {
    return (await this.client.request(...wire('context/get', { context: this.name, ids: [...ids], keys: keys && [...keys] }))).objects;
  }

  /**
   * context/fetch; `keys` restricts the values returned. options: {resultType, propertiesToFetch,
   * propertiesToGroupBy, havingPredicate, returnsDistinctResults} (dictionary and id results).
   */
  async fetch(request, keys, options = {}) {
    const params = { context: this.name, request, keys: keys && [...keys], ...options };
    return (await this.client.request(...wire('context/fetch', params))).objects;
  }

  /** Dictionary rows: key paths and {name, function, keyPath} expressions, optionally grouped. */
  fetchDictionaries(request, { propertiesToFetch, propertiesToGroupBy, havingPredicate, returnsDistinctResults } = {}) {
    return this.fetch(request, undefined, {
      resultType: 'dictionary', propertiesToFetch, propertiesToGroupBy, havingPredicate, returnsDistinctResults,
    });
  }

  /** The ids a request selects, in its order. */
  fetchIds(request) {
    return this.fetch(request, undefined, { resultType: 'id' });
  }

  async count(request) {
    return (await this.client.request(...wire('context/count', { context: this.name, request }))).count;
  }

  /** Resolves to the counts {inserted, updated, deleted}. */
  save() {
    return this.client.request(...wire('context/save', { context: this.name }));
  }

  async rollback() {
    await this.client.request(...wire('context/rollback', { context: this.name }));
  }

  async processPendingChanges() {
    await this.client.request(...wire('context/processPendingChanges', { context: this.name }));
  }

  async close() {
    await this.client.request(...wire('context/close', { context: this.name }));
  }

  async hasChanges() {
    return (await this.client.request(...wire('context/hasChanges', { context: this.name }))).hasChanges;
  }

  /** Resolves to the ids {inserted, updated, deleted} of the unsaved changes. */
  changes() {
    return this.client.request(...wire('context/changes', { context: this.name }));
  }

  /** The keys of `id` that differ from the committed values, with the values here. */
  async changedValues(id) {
    return (await this.client.request(...wire('context/changedValues', { context: this.name, id }))).values;
  }

  /** `id`'s values as the parent (the store for a root) shows them; `keys` restricts them. */
  async committedValues(id, keys) {
    return (await this.client.request(...wire('context/committedValues', { context: this.name, id, keys: keys && [...keys] }))).values;
  }

  /** Re-bases (mergeChanges true) or drops (false) the unsaved change to `id`. */
  async refresh(id, mergeChanges) {
    await this.client.request(...wire('context/refresh', { context: this.name, id, mergeChanges }));
  }

  async reset() {
    await this.client.request(...wire('context/reset', { context: this.name }));
  }

  /** Undoes the last group of edits (a change cycle); resolves to the undo state. */
  undo() {
    return this.client.request(...wire('context/undo', { context: this.name }));
  }

  redo() {
    return this.client.request(...wire('context/redo', { context: this.name }));
  }

  /** {canUndo, canRedo, undoActionName, redoActionName, undoCount, redoCount, groupingLevel}. */
  undoState() {
    return this.client.request(...wire('context/undoState', { context: this.name }));
  }

  beginUndoGrouping({ actionName } = {}) {
    return this.client.request(...wire('context/beginUndoGrouping', { context: this.name, actionName }));
  }

  endUndoGrouping() {
    return this.client.request(...wire('context/endUndoGrouping', { context: this.name }));
  }

  batch() {
    return new Batch(this.client, this.name);
  }

  controller(name, request, options = {}) {
    return this.client.controller(this.name, name, request, options);
  }
}

/** One call of a batch; its outcome is known once the batch is sent. */
export class BatchCall {
  constructor(method, params, pick) {
    this.method = method;
    this.params = params;
    this.pick = pick;
    this.response = null;
  }

  get done() {
    return this.response !== null;
  }

  get error() {
    return this.response?.error ?? null;
  }

  /** The call's result (`object` for insert/update); throws its FetchdError. */
  get result() {
    if (!this.response) throw new Error('the batch has not been sent yet');
    if (this.response.error) throw this.response.error;
    const value = this.response.result;
    return this.pick && value && typeof value === 'object' ? value[this.pick] : value;
  }
}

export class Batch {
  constructor(client, context) {
    this.client = client;
    this.context = context;
    this.calls = [];
    this.sent = false;
  }

  #ctx(context) {
    const name = context ?? this.context;
    if (!name) throw new Error('this batch has no default context; pass a context');
    return name;
  }

  call(method, params, pick) {
    if (this.sent) throw new Error('the batch was already sent');
    const item = new BatchCall(method, params, pick);
    this.calls.push(item);
    return item;
  }

  insert(entity, values = {}, context) {
    return this.call(...wire('context/insert', { context: this.#ctx(context), entity, values: { ...values } }), 'object');
  }

  update(id, values, context) {
    return this.call(...wire('context/update', { context: this.#ctx(context), id, values: { ...values } }), 'object');
  }

  delete(id, context) {
    return this.call(...wire('context/delete', { context: this.#ctx(context), id }));
  }

  save(context) {
    return this.call(...wire('context/save', { context: this.#ctx(context) }));
  }

  rollback(context) {
    return this.call(...wire('context/rollback', { context: this.#ctx(context) }));
  }

  /** Send as one JSON-RPC batch. With throwOnError the first failed call's error is thrown
   * (every call still has its outcome). */
  async send({ throwOnError = true } = {}) {
    if (this.sent) throw new Error('the batch was already sent');
    this.sent = true;
    if (!this.calls.length) return [];
    const responses = await this.client.sendBatch(this.calls.map((c) => [c.method, c.params]));
    this.calls.forEach((c, i) => (c.response = responses[i]));
    if (throwOnError) {
      const failed = this.calls.find((c) => c.error);
      if (failed) throw failed.error;
    }
    return this.calls;
  }
}
