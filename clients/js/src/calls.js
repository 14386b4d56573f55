// Method names and parameter objects of every fetchd call (one place for the wire shapes).

const compact = (params) => Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null));

export const calls = {
  initialize: (name, version) => ['initialize', { clientInfo: compact({ name, version }) }],
  openStore: (model, path) => ['store/open', compact({ path, model })],
  createContext: (name, { parent, mergesChangesFromParent, mergePolicy } = {}) => [
    'context/create',
    compact({ name, parent, mergesChangesFromParent, mergePolicy }),
  ],
  insert: (context, entity, values) => ['context/insert', { context, entity, values: { ...(values ?? {}) } }],
  update: (context, id, values) => ['context/update', { context, id, values: { ...values } }],
  delete: (context, id) => ['context/delete', { context, id }],
  get: (context, ids, keys) => ['context/get', compact({ context, ids: [...ids], keys: keys ? [...keys] : undefined })],
  fetch: (context, request) => ['context/fetch', { context, request }],
  count: (context, request) => ['context/count', { context, request }],
  contextOnly: (verb, context) => [`context/${verb}`, { context }],
  createController: (context, name, request, sectionNameKeyPath, notify) => [
    'controller/create',
    compact({ context, name, request, sectionNameKeyPath, notify }),
  ],
  rows: (controller, section, { offset = 0, limit, keys } = {}) => [
    'controller/rows',
    compact({ controller, section, offset, limit, keys: keys ? [...keys] : undefined }),
  ],
  controllerOnly: (verb, controller) => [`controller/${verb}`, { controller }],
  objectAt: (controller, indexPath) => ['controller/object', { controller, indexPath: [...indexPath] }],
  indexPath: (controller, id) => ['controller/indexPath', { controller, id }],
  sectionForIndexTitle: (controller, title, index) => ['controller/sectionForIndexTitle', { controller, title, index }],
};

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
