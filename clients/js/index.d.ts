// Types for the fetchd JavaScript client (ESM, Node >= 18).
import { EventEmitter } from 'node:events';
import { ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';

export type Framing = 'lsp' | 'ndjson';
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };
export type Params = { [key: string]: JSONValue | undefined } | null | undefined;
/** An object on the wire: {"id": "Entity/N", ...values}. */
export type WireObject = { id: string; [key: string]: JSONValue };
export type IndexPath = [section: number, row: number];
export type ObjectChangeType = 'insert' | 'delete' | 'move' | 'update';
export type SectionChangeType = 'insert' | 'delete';

export const INSERT: 'insert';
export const DELETE: 'delete';
export const MOVE: 'move';
export const UPDATE: 'update';
export const LSP: 'lsp';
export const NDJSON: 'ndjson';

export interface SectionInfo {
  name: string;
  indexTitle: string;
  numberOfObjects: number;
}

export interface SortDescriptor {
  key: string;
  ascending?: boolean;
  comparator?: 'compare' | 'caseInsensitiveCompare' | 'localizedStandardCompare';
}

export interface FetchRequest {
  entity: string;
  predicate?: string;
  variables?: { [name: string]: JSONValue };
  sortDescriptors?: SortDescriptor[];
  fetchLimit?: number;
  fetchOffset?: number;
  fetchBatchSize?: number;
}

export interface Model {
  entities: Array<{
    name: string;
    attributes?: { [name: string]: { type: 'string' | 'integer' | 'double' | 'boolean' | 'date' | 'binary' | 'uuid'; optional?: boolean; default?: JSONValue } };
    relationships?: { [name: string]: { destination: string; toMany?: boolean; inverse?: string; deleteRule?: 'nullify' | 'cascade' | 'deny' | 'noAction' } };
  }>;
}

/** notify projection of controller/create: which values notifications carry. */
export type Notify = { keys?: string[] } | { objects: false };

export interface SectionChange {
  type: SectionChangeType;
  sectionIndex: number;
  section: SectionInfo;
}

export interface ObjectChange {
  type: ObjectChangeType;
  id: string;
  /** Position before the cycle (delete, move, update). */
  indexPath: IndexPath | null;
  /** Position after the cycle (insert, move, update). */
  newIndexPath: IndexPath | null;
  object: WireObject | null;
  /** What a table shows: the values, or {id} for ids-only controllers. */
  row: WireObject;
}

export class ChangeBatch {
  sections: SectionChange[];
  objects: ObjectChange[];
  counts(): { [kind: string]: number };
}

export function sectionInfoFromWire(info: unknown): SectionInfo;
export function sectionChangeFromWire(params: unknown): SectionChange;
export function objectChangeFromWire(params: unknown): ObjectChange;

export class FetchdError extends Error {
  code: number;
  rpcMessage: string;
  data: JSONValue;
  /** data.kind: the server's name for the problem. */
  readonly kind: string | null;
  static fromObject(error: { code: number; message: string; data?: JSONValue }): FetchdError;
}
export class ProtocolViolation extends Error {}
export class MirrorError extends Error {}
export class ConnectionClosed extends Error {}

export function encode(body: Buffer, framing: Framing): Buffer;
export class LSPDecoder {
  feed(data: Buffer): Buffer[];
  readonly pending: number;
}
export class NDJSONDecoder {
  feed(data: Buffer): Buffer[];
  readonly pending: number;
}

export type Incoming =
  | { kind: 'notification'; method: string; params: { [key: string]: JSONValue } }
  | { kind: 'response'; id: number | string | null; result?: JSONValue; error?: FetchdError };

export class ProtocolCore {
  constructor(framing?: Framing);
  framing: Framing;
  request(method: string, params?: Params): { id: number; data: Buffer };
  notification(method: string, params?: Params): Buffer;
  batch(calls: Array<[string, Params?]>): { ids: number[]; data: Buffer };
  feed(data: Buffer): Incoming[];
  register(name: string, target: { handleNotification(method: string, params: object): void }): object | undefined;
  unregister(name: string, restore?: object): void;
  addListener(listener: (method: string, params: any) => void): void;
  removeListener(listener: (method: string, params: any) => void): void;
}

export interface MirrorSection {
  name: string;
  indexTitle: string;
  rows: WireObject[];
}

/** A controller's sections and rows, kept in sync by SEMANTICS.md §3; render straight from it. */
export class TableMirror {
  sections: MirrorSection[];
  load(infos: SectionInfo[], rows: WireObject[][]): void;
  apply(batch: ChangeBatch): void;
  readonly count: number;
  sectionInfos(): SectionInfo[];
  sectionIndexTitles(): string[];
  objectAt(indexPath: IndexPath): WireObject;
  indexPathOf(id: string): IndexPath | null;
  ids(): string[][];
}

/** NSFetchedResultsControllerDelegate; every method is optional. */
export interface ControllerDelegate {
  willChangeContent?(controller: ControllerCore): void;
  didChangeSection?(controller: ControllerCore, sectionInfo: SectionInfo, sectionIndex: number, type: SectionChangeType): void;
  didChangeObject?(controller: ControllerCore, object: WireObject, indexPath: IndexPath | null, type: ObjectChangeType, newIndexPath: IndexPath | null): void;
  /** Called after the mirror applied the cycle. */
  didChangeContent?(controller: ControllerCore): void;
}

/** Events: 'willChangeContent'(), 'didChangeSection'(info, index, type),
 * 'didChangeObject'(object, indexPath, type, newIndexPath), 'didChangeContent'(), 'cycle'(batch). */
export class ControllerCore extends EventEmitter {
  constructor(name: string, options?: { delegate?: ControllerDelegate | null; mirror?: TableMirror | null });
  name: string;
  delegate: ControllerDelegate | null;
  mirror: TableMirror | null;
  cycles: number;
  lastBatch: ChangeBatch | null;
  readonly inCycle: boolean;
  handleNotification(method: string, params: any): void;
}

export interface ControllerOptions {
  sectionNameKeyPath?: string;
  notify?: Notify;
  delegate?: ControllerDelegate;
  /** Keep a TableMirror (default true). */
  mirror?: boolean;
}

export class Controller extends ControllerCore {
  client: Client;
  context: string;
  request: FetchRequest;
  sectionNameKeyPath: string | null;
  notify: Notify | null;
  sectionsAtCreate: SectionInfo[];
  mirror: TableMirror | null;
  sections(): Promise<SectionInfo[]>;
  rows(section: number, options?: { offset?: number; limit?: number; keys?: string[] }): Promise<WireObject[]>;
  fetched(options?: { keys?: string[] }): Promise<WireObject[][]>;
  objectAt(indexPath: IndexPath): Promise<WireObject>;
  indexPath(id: string): Promise<IndexPath | null>;
  sectionIndexTitles(): Promise<string[]>;
  sectionForIndexTitle(title: string, index: number): Promise<number>;
  performFetch(): Promise<SectionInfo[]>;
  close(): Promise<void>;
}

export class Context {
  constructor(client: Client, name: string);
  client: Client;
  name: string;
  insert(entity: string, values?: { [key: string]: JSONValue }): Promise<WireObject>;
  update(id: string, values: { [key: string]: JSONValue }): Promise<WireObject>;
  delete(id: string): Promise<void>;
  get(ids: string[], keys?: string[]): Promise<WireObject[]>;
  fetch(request: FetchRequest): Promise<WireObject[]>;
  count(request: FetchRequest): Promise<number>;
  save(): Promise<{ inserted: number; updated: number; deleted: number }>;
  rollback(): Promise<void>;
  processPendingChanges(): Promise<void>;
  close(): Promise<void>;
  batch(): Batch;
  controller(name: string, request: FetchRequest, options?: ControllerOptions): Promise<Controller>;
}

export class BatchCall {
  method: string;
  params: Params;
  readonly done: boolean;
  readonly error: FetchdError | null;
  /** The result (`object` for insert/update); throws the call's FetchdError. */
  readonly result: any;
}

/** A JSON-RPC batch: one change cycle on the server. */
export class Batch {
  calls: BatchCall[];
  sent: boolean;
  call(method: string, params?: Params, pick?: string): BatchCall;
  insert(entity: string, values?: { [key: string]: JSONValue }, context?: string): BatchCall;
  update(id: string, values: { [key: string]: JSONValue }, context?: string): BatchCall;
  delete(id: string, context?: string): BatchCall;
  save(context?: string): BatchCall;
  rollback(context?: string): BatchCall;
  send(options?: { throwOnError?: boolean }): Promise<BatchCall[]>;
}

export interface SpawnOptions {
  framing?: Framing;
  args?: string[];
  stderr?: 'inherit' | 'ignore' | 'pipe';
  env?: NodeJS.ProcessEnv;
}

/** Events: 'notification'(method, params), '<method>'(params) per notification, 'close'(code). */
export class Client extends EventEmitter {
  constructor(readable: Readable, writable: Writable, options?: { framing?: Framing; process?: ChildProcess | null });
  static spawn(binary?: string | null, options?: SpawnOptions): Client;
  core: ProtocolCore;
  process: ChildProcess | null;
  request(method: string, params?: Params): Promise<any>;
  notify(method: string, params?: Params): void;
  sendBatch(calls: Array<[string, Params?]>): Promise<Array<{ id: number; result?: any; error?: FetchdError }>>;
  initialize(name?: string, version?: string): Promise<{ serverInfo: { name: string; version: string }; protocolVersion: number; capabilities: object }>;
  shutdown(): Promise<number | string | null>;
  close(timeoutMs?: number): Promise<number | string | null>;
  openStore(model: Model, path?: string): Promise<{ entities: string[]; migrated: boolean }>;
  context(name?: string): Context;
  createContext(name: string, options?: { parent?: string; mergesChangesFromParent?: boolean; mergePolicy?: 'error' | 'objectTrump' | 'storeTrump' | 'overwrite' | 'rollback' }): Promise<Context>;
  controller(context: string | Context, name: string, request: FetchRequest, options?: ControllerOptions): Promise<Controller>;
  batch(context?: string | Context | null): Batch;
}

export function fetchRequest(
  entity: string,
  options?: { predicate?: string; sortDescriptors?: Array<string | SortDescriptor>; variables?: { [name: string]: JSONValue }; fetchLimit?: number; fetchOffset?: number; fetchBatchSize?: number },
): FetchRequest;
export function sort(key: string, ascending?: boolean, comparator?: SortDescriptor['comparator']): SortDescriptor;
export function findFetchd(explicit?: string | null): string;
