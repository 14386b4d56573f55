// Compiled with `tsc --noEmit --strict` next to the types generated from
// tests/fixtures/openrpc-subset.json (tests/gen-types.test.js): each schema keyword maps to a
// type that admits what the schema admits, and the @ts-expect-error lines are what it refuses.
import type {
  Attribute,
  CancelRequestParams,
  ClientNotifications,
  ContextDeleteResult,
  ContextFetchResult,
  ControllerCreateParams,
  ControllerIndexPathResult,
  ErrorData,
  FetchRequest,
  IndexPath,
  InitializeResult,
  Requests,
  RpcDiscoverResult,
  SectionChangeType,
  ServerNotifications,
  WireObject,
} from './wire.js';

const path: IndexPath = [0, 1];
const none: ControllerIndexPathResult = { indexPath: null };
const some: ControllerIndexPathResult = { indexPath: path };
const object: WireObject = { id: 'Note/1', title: 'x', tags: ['a', 1, null, { deep: true }] };
const request: FetchRequest = { entity: 'Note', variables: { who: ['a'] }, sortDescriptors: [{ key: 'title', comparator: 'compare' }] };
const byKeys: ControllerCreateParams = { context: 'main', name: 'c', request, sectionNameKeyPath: null, notify: { keys: ['title'] } };
const idsOnly: ControllerCreateParams = { context: 'main', name: 'c', request, notify: { objects: false } };
const cancelByNumber: CancelRequestParams = { id: 3 };
const cancelByString: CancelRequestParams = { id: 'a' };
const deleted: ContextDeleteResult = {};
const fetched: ContextFetchResult = { objects: [object] };
const init: InitializeResult = { serverInfo: { name: 'fetchd', version: '1' }, protocolVersion: 1, capabilities: { batch: true, extra: [1] } };
const error: ErrorData = { kind: 'invalidParams', param: 'value', expected: 'a value' };
const discovered: RpcDiscoverResult = { openrpc: '1.3.2', methods: [] };
const echoed: Requests['server/echo']['result'] = { any: ['json'] };
const change: ServerNotifications['controller/didChangeObject'] = { controller: 'c', type: 'insert', id: 'Note/1', newIndexPath: [0, 0] };
const exit: ClientNotifications['exit'] = {};
const attribute: Attribute = { type: 'date', default: '2024-01-01' };

// @ts-expect-error: enum
const sectionMove: SectionChangeType = 'move';
// @ts-expect-error: const false
const notifyTrue: ControllerCreateParams = { context: 'main', name: 'c', request, notify: { objects: true } };
// @ts-expect-error: type ["integer", "string"]
const cancelByBool: CancelRequestParams = { id: true };
// @ts-expect-error: required id
const noId: WireObject = { title: 'x' };
// @ts-expect-error: additionalProperties false
const extraKey: ContextFetchResult = { objects: [], more: 1 };
// @ts-expect-error: an empty object with additionalProperties false
const notEmpty: ContextDeleteResult = { a: 1 };
// @ts-expect-error: const 1
const version2: InitializeResult = { serverInfo: { name: 'fetchd', version: '1' }, protocolVersion: 2, capabilities: {} };
// @ts-expect-error: enum inside a property
const text: Attribute = { type: 'text' };
// @ts-expect-error: items of IndexPath are numbers
const stringPath: IndexPath = ['0', '1'];
// @ts-expect-error: not a request of the document (a notification)
type NotARequest = Requests['exit'];

export const all = [path, none, some, byKeys, idsOnly, cancelByNumber, cancelByString, deleted, fetched, init, error, discovered,
  echoed, change, exit, attribute, sectionMove, notifyTrue, cancelByBool, noId, extraKey, notEmpty, version2, text, stringPath];
