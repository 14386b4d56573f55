// Every request of the protocol as the client sends it: one table keyed by wire method name.
//
// How a request maps to the JS API (tests/methods.test.js checks the table against the
// OpenRPC document clients/openrpc.json, and the declared parameter names in index.d.ts):
// `api` is the JS method ('Class.method'). It takes the wire params named in `args`
// positionally, in that order, under the same names; `handle` is the param its object
// supplies (`context` on a Context, `controller` on a Controller); `options` are the wire
// params it takes in one trailing options object, under the same keys. Together these are
// exactly the method's params in the document, and every required param is positional
// or the handle. Requests go through wire(), which refuses a param the table does not list.

export const METHODS = Object.freeze({
  'rpc.discover': { api: 'Client.discover', args: [] },
  'server/ping': { api: 'Client.ping', args: [] },
  'server/echo': { api: 'Client.echo', args: ['value'] },
  initialize: { api: 'Client.initialize', args: ['clientInfo'] },
  shutdown: { api: 'Client.shutdown', args: [] },
  'store/open': { api: 'Client.openStore', args: ['model', 'path'], options: ['historyToken', 'url', 'schema', 'workDoneToken'] },
  'store/checkExternalChanges': { api: 'Client.checkExternalChanges', args: [] },
  'store/historyToken': { api: 'Client.historyToken', args: [] },
  'store/history': { api: 'Client.history', args: ['after'], options: ['limit', 'authors', 'entities'] },
  'store/purgeHistory': { api: 'Client.purgeHistory', args: ['before'], options: ['force'] },
  'store/batchInsert': { api: 'Client.batchInsert', args: ['entity'], options: ['objects', 'keys', 'rows', 'returnIds', 'more', 'workDoneToken'] },
  'store/cancelBatchInsert': { api: 'Client.cancelBatchInsert', args: ['entity'] },
  'store/batchUpdate': { api: 'Client.batchUpdate', args: ['entity', 'values'], options: ['predicate', 'variables', 'workDoneToken'] },
  'store/batchUpdateObjects': { api: 'Client.batchUpdateObjects', args: ['entity'], options: ['objects', 'ids', 'keys', 'rows', 'workDoneToken'] },
  'store/batchDelete': { api: 'Client.batchDelete', args: ['entity'], options: ['ids', 'predicate', 'variables', 'workDoneToken'] },
  'context/create': {
    api: 'Client.createContext', args: ['name'],
    options: ['parent', 'mergesChangesFromParent', 'mergePolicy', 'transactionAuthor', 'undo'],
  },
  'context/insert': { api: 'Context.insert', handle: 'context', args: ['entity', 'values'] },
  'context/update': { api: 'Context.update', handle: 'context', args: ['id', 'values'] },
  'context/delete': { api: 'Context.delete', handle: 'context', args: ['id'] },
  'context/get': { api: 'Context.get', handle: 'context', args: ['ids', 'keys'] },
  'context/fetch': {
    api: 'Context.fetch', handle: 'context', args: ['request', 'keys'],
    options: ['resultType', 'propertiesToFetch', 'propertiesToGroupBy', 'havingPredicate', 'returnsDistinctResults'],
  },
  'context/count': { api: 'Context.count', handle: 'context', args: ['request'] },
  'context/save': { api: 'Context.save', handle: 'context', args: [] },
  'context/rollback': { api: 'Context.rollback', handle: 'context', args: [] },
  'context/processPendingChanges': { api: 'Context.processPendingChanges', handle: 'context', args: [] },
  'context/close': { api: 'Context.close', handle: 'context', args: [] },
  'context/hasChanges': { api: 'Context.hasChanges', handle: 'context', args: [] },
  'context/changes': { api: 'Context.changes', handle: 'context', args: [] },
  'context/changedValues': { api: 'Context.changedValues', handle: 'context', args: ['id'] },
  'context/committedValues': { api: 'Context.committedValues', handle: 'context', args: ['id', 'keys'] },
  'context/refresh': { api: 'Context.refresh', handle: 'context', args: ['id', 'mergeChanges'] },
  'context/reset': { api: 'Context.reset', handle: 'context', args: [] },
  'context/undo': { api: 'Context.undo', handle: 'context', args: [] },
  'context/redo': { api: 'Context.redo', handle: 'context', args: [] },
  'context/undoState': { api: 'Context.undoState', handle: 'context', args: [] },
  'context/beginUndoGrouping': { api: 'Context.beginUndoGrouping', handle: 'context', args: [], options: ['actionName'] },
  'context/endUndoGrouping': { api: 'Context.endUndoGrouping', handle: 'context', args: [] },
  'controller/create': { api: 'Client.controller', args: ['context', 'name', 'request'], options: ['sectionNameKeyPath', 'notify', 'workDoneToken'] },
  'controller/performFetch': { api: 'Controller.performFetch', handle: 'controller', args: [] },
  'controller/sections': { api: 'Controller.sections', handle: 'controller', args: [] },
  'controller/rows': { api: 'Controller.rows', handle: 'controller', args: ['section'], options: ['offset', 'limit', 'keys'] },
  'controller/object': { api: 'Controller.objectAt', handle: 'controller', args: ['indexPath'] },
  'controller/indexPath': { api: 'Controller.indexPath', handle: 'controller', args: ['id'] },
  'controller/sectionIndexTitles': { api: 'Controller.sectionIndexTitles', handle: 'controller', args: [] },
  'controller/sectionForIndexTitle': { api: 'Controller.sectionForIndexTitle', handle: 'controller', args: ['title', 'index'] },
  'controller/setRequest': { api: 'Controller.setRequest', handle: 'controller', args: [], options: ['request', 'sectionNameKeyPath'] },
  'controller/close': { api: 'Controller.close', handle: 'controller', args: [] },
});

/** The wire params of a table entry: handle, positional args, then options. */
export function wireParams(entry) {
  return [...(entry.handle ? [entry.handle] : []), ...entry.args, ...(entry.options ?? [])];
}

/**
 * [method, params] of a request; `values` are keyed by wire param name, and those that are
 * undefined or null are left out. A request without params in the table sends none.
 */
export function wire(method, values = {}) {
  const entry = Object.hasOwn(METHODS, method) ? METHODS[method] : null;
  if (!entry) throw new Error(`${method} is not in the client's method table`);
  const names = wireParams(entry);
  for (const key of Object.keys(values)) {
    if (!names.includes(key)) throw new Error(`${method} has no parameter ${JSON.stringify(key)}`);
  }
  if (!names.length) return [method, undefined];
  return [method, Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null))];
}

const compact = (params) => Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null));

/** The keys a controller's mirror rows carry, matching its notifications' objects. */
export function mirrorKeys(notify) {
  if (!notify) return { keys: undefined, withValues: true };
  if (notify.objects === false) return { keys: undefined, withValues: false };
  return { keys: notify.keys, withValues: true };
}

/** A sort descriptor; comparator: "compare" | "caseInsensitiveCompare" | "localizedStandardCompare". */
export function sort(key, ascending = true, comparator) {
  return compact({ key, ascending, comparator });
}

/** A FetchRequest. A string sort spec is ascending by that key, "-key" descending. */
export function fetchRequest(entity, { predicate, sortDescriptors = [], variables, fetchLimit, fetchOffset, fetchBatchSize } = {}) {
  const descriptors = sortDescriptors.map((spec) =>
    typeof spec === 'string' ? (spec.startsWith('-') ? sort(spec.slice(1), false) : sort(spec, true)) : { ...spec },
  );
  return compact({
    entity,
    predicate,
    variables,
    sortDescriptors: descriptors.length ? descriptors : undefined,
    fetchLimit,
    fetchOffset,
    fetchBatchSize,
  });
}
