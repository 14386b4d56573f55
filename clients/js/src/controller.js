// Controllers: notification handling (delegate, events, TableMirror) and the server calls.
import { EventEmitter } from 'node:events';
import { ChangeBatch, Difference, objectChangeFromWire, sectionChangeFromWire, sectionInfoFromWire } from './changes.js';
import { mirrorKeys, wire } from './calls.js';
import { ProtocolViolation } from './errors.js';
import { TableMirror } from './mirror.js';

export const WILL_CHANGE_CONTENT = 'controller/willChangeContent';
export const DID_CHANGE_SECTION = 'controller/didChangeSection';
export const DID_CHANGE_OBJECT = 'controller/didChangeObject';
export const DID_CHANGE_CONTENT = 'controller/didChangeContent';
export const DID_CHANGE = 'controller/didChange';

/**
 * Receives a controller's notifications, collects the cycle's batch, applies it to the
 * mirror on didChangeContent, then tells the delegate (NSFetchedResultsControllerDelegate:
 * willChangeContent(c), didChangeSection(c, sectionInfo, sectionIndex, type),
 * didChangeObject(c, object, indexPath, type, newIndexPath), didChangeContent(c)) and emits
 * the same four as events ('willChangeContent', ..., plus 'cycle' with the batch). A controller
 * in notify mode "difference" gets one controller/didChange per cycle instead: the delegate's
 * willChangeContent, didChange(c, difference), didChangeContent, and 'cycle' with the Difference.
 */
export class ControllerCore extends EventEmitter {
  constructor(name, { delegate = null, mirror = null } = {}) {
    super();
    this.name = name;
    this.delegate = delegate;
    this.mirror = mirror;
    this.cycles = 0;
    this.lastBatch = null;
    // The last controller/didChange (notify mode "difference"; lastBatch stays null).
    this.lastDifference = null;
    this.batch = null;
    // While the mirror loads its rows, cycles are already in what the rows answer.
    this.loading = false;
  }

  get inCycle() {
    return this.batch !== null;
  }

  handleNotification(method, params) {
    if (method === WILL_CHANGE_CONTENT) {
      if (this.batch) throw new ProtocolViolation(`${this.name}: willChangeContent inside an open cycle`);
      this.batch = new ChangeBatch();
      this.#tell('willChangeContent', this);
    } else if (method === DID_CHANGE_SECTION) {
      const change = sectionChangeFromWire(params);
      this.#open(method).sections.push(change);
      this.#tell('didChangeSection', this, change.section, change.sectionIndex, change.type);
    } else if (method === DID_CHANGE_OBJECT) {
      const change = objectChangeFromWire(params);
      this.#open(method).objects.push(change);
      this.#tell('didChangeObject', this, change.row, change.indexPath, change.type, change.newIndexPath);
    } else if (method === DID_CHANGE_CONTENT) {
      const batch = this.#open(method);
      this.batch = null;
      if (this.mirror && !this.loading) this.mirror.apply(batch);
      this.cycles += 1;
      this.lastBatch = batch;
      this.emit('cycle', batch);
      this.#tell('didChangeContent', this);
    } else if (method === DID_CHANGE) {
      if (this.batch) throw new ProtocolViolation(`${this.name}: didChange inside an open cycle`);
      const difference = new Difference(params);
      this.#tell('willChangeContent', this);
      this.#tell('didChange', this, difference);
      if (this.mirror && !this.loading) this.mirror.applyDifference(difference);
      this.cycles += 1;
      this.lastDifference = difference;
      this.emit('cycle', difference);
      this.#tell('didChangeContent', this);
    }
  }

  #open(method) {
    if (!this.batch) throw new ProtocolViolation(`${this.name}: ${method} outside willChangeContent/didChangeContent`);
    return this.batch;
  }

  #tell(name, ...args) {
    const handler = this.delegate?.[name];
    if (typeof handler === 'function') handler.apply(this.delegate, args);
    this.emit(name, ...args.slice(1));
  }
}

/** `notify` with `mode` set ("rows", or "difference": one controller/didChange per cycle). */
export function withMode(notify, mode) {
  if (mode === undefined || mode === null) return notify ?? null;
  return { ...(notify ?? {}), mode };
}

/** A named controller on the server; create it with client.controller(...). */
export class Controller extends ControllerCore {
  constructor(client, context, name, request, { sectionNameKeyPath, notify, mode, delegate, mirror = true } = {}) {
    super(name, { delegate, mirror: mirror ? new TableMirror() : null });
    this.client = client;
    this.context = context;
    this.request = request;
    this.sectionNameKeyPath = sectionNameKeyPath ?? null;
    this.notify = withMode(notify, mode);
    this.sectionsAtCreate = [];
  }

  async _created(sections) {
    this.sectionsAtCreate = sections;
    await this.#reloadMirror(sections);
  }

  /**
   * Loads the mirror with controller/rows. A cycle arriving meanwhile (another process's commit
   * merged between two requests) is in the rows read after it but not in those read before: the
   * load starts over from fresh sections until none arrives.
   */
  async #reloadMirror(sections) {
    if (!this.mirror) return;
    const { keys, withValues } = mirrorKeys(this.notify);
    this.loading = true;
    try {
      for (;;) {
        const seen = this.cycles;
        const rows = [];
        for (let i = 0; i < sections.length; i++) {
          const objects = sections[i].numberOfObjects ? await this.rows(i, { keys }) : [];
          rows.push(withValues ? objects : objects.map((o) => ({ id: o.id })));
        }
        if (this.cycles === seen) {
          this.mirror.load(sections, rows);
          return;
        }
        sections = await this.sections();
      }
    } finally {
      this.loading = false;
    }
  }

  async sections() {
    const result = await this.client.request(...wire('controller/sections', { controller: this.name }));
    return result.sections.map(sectionInfoFromWire);
  }

  /** controller/rows. options: {offset = 0, limit, keys}. */
  async rows(section, { offset = 0, limit, keys } = {}) {
    const params = { controller: this.name, section, offset, limit, keys: keys && [...keys] };
    return (await this.client.request(...wire('controller/rows', params))).objects;
  }

  /** Every section's rows, fresh from the server. */
  async fetched(options = {}) {
    const sections = await this.sections();
    const out = [];
    for (let i = 0; i < sections.length; i++) out.push(sections[i].numberOfObjects ? await this.rows(i, options) : []);
    return out;
  }

  async objectAt(indexPath) {
    return (await this.client.request(...wire('controller/object', { controller: this.name, indexPath: [...indexPath] }))).object;
  }

  async indexPath(id) {
    return (await this.client.request(...wire('controller/indexPath', { controller: this.name, id }))).indexPath;
  }

  async sectionIndexTitles() {
    return (await this.client.request(...wire('controller/sectionIndexTitles', { controller: this.name }))).titles;
  }

  async sectionForIndexTitle(title, index) {
    return (await this.client.request(...wire('controller/sectionForIndexTitle', { controller: this.name, title, index }))).section;
  }

  /** Fetch again (no notifications); the mirror is reloaded. */
  async performFetch() {
    const result = await this.client.request(...wire('controller/performFetch', { controller: this.name }));
    const sections = result.sections.map(sectionInfoFromWire);
    await this.#reloadMirror(sections);
    return sections;
  }

  /**
   * controller/setRequest: the request and sections change live; one change cycle reaches the
   * delegate and the mirror before this resolves. options: {request, sectionNameKeyPath}: an
   * omitted one is kept; sectionNameKeyPath null removes the sections. Resolves to the sections.
   */
  async setRequest({ request, sectionNameKeyPath } = {}) {
    const [method, params] = wire('controller/setRequest', { controller: this.name, request, sectionNameKeyPath });
    if (sectionNameKeyPath === null) params.sectionNameKeyPath = null; // wire() drops nulls; null is meaningful here
    const result = await this.client.request(method, params);
    if (request !== undefined) this.request = request;
    if (sectionNameKeyPath !== undefined) this.sectionNameKeyPath = sectionNameKeyPath;
    return result.sections.map(sectionInfoFromWire);
  }

  async close() {
    await this.client.request(...wire('controller/close', { controller: this.name }));
    this.client.core.unregister(this.name);
  }
}
