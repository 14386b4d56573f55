// Compiled with `tsc --noEmit --strict` against the shipped index.d.ts (tests/types.test.js):
// the client's declarations use the generated wire types consistently, and the generated
// types are tight enough that the @ts-expect-error lines below really are errors.
import {
  Client,
  Context,
  Controller,
  Difference,
  CLIENT_INFO,
  FetchdError,
  METHODS,
  PROTOCOL_VERSION,
  ProtocolVersionMismatch,
  TableMirror,
  fetchRequest,
  sort,
  type ContextSaveResult,
  type FetchRequest,
  type IndexPath,
  type Model,
  type ObjectChangeType,
  type Requests,
  type ServerNotifications,
  type WireObject,
} from '../../index.js';

const model: Model = {
  entities: [
    {
      name: 'Note',
      attributes: { title: { type: 'string' }, at: { type: 'date', optional: true } },
      relationships: { tags: { destination: 'Tag', toMany: true, inverse: 'notes', deleteRule: 'nullify' } },
    },
  ],
};

export async function usage(client: Client): Promise<number> {
  const info = await client.initialize({ name: 'usage', version: '1' });
  const serverName: string = info.serverInfo.name;
  const opened = await client.openStore(model, ':memory:');
  const entities: string[] = opened.entities;
  const main: Context = client.context();
  const note: WireObject = await main.insert('Note', { title: 'x', at: null });
  const id: string = note.id;
  const request: FetchRequest = fetchRequest('Note', { predicate: 'title != nil', sortDescriptors: ['-at', sort('title')] });
  const objects: WireObject[] = await main.fetch(request, ['title']);
  const saved: ContextSaveResult = await main.save();
  const counted: Requests['context/count']['result'] = await client.request('context/count', { context: 'main', request });
  const notes: Controller = await main.controller('notes', request, { notify: { keys: ['title'] }, sectionNameKeyPath: 'title' });
  const path: IndexPath | null = await notes.indexPath(id);
  const rows: WireObject[] = await notes.rows(0, { offset: 1, limit: 2, keys: ['title'] });
  const mirror: TableMirror | null = notes.mirror;
  // A controller made with a mirror (the default) has one: no null check under --strict.
  const mirrored = await main.controller('mirrored', request);
  const mirroredIds: string[][] = mirrored.mirror.ids();
  const bare = await main.controller('bare', request, { mirror: false });
  // @ts-expect-error: a controller made with mirror: false has none
  bare.mirror.ids();
  const rowsDiff: Controller = await main.controller('diff', request, { notify: { keys: ['title'] }, mode: 'difference' });
  rowsDiff.on('cycle', (cycle: Difference) => {
    const inserted: WireObject[] = cycle.rows(0, cycle.inserted.reduce((n, run) => n + (run[2] ?? 0), 0));
    void inserted;
  });
  // @ts-expect-error: a mode is rows or difference
  await main.controller('bad', request, { mode: 'cells' });
  const change: ServerNotifications['controller/didChangeObject'] = { controller: 'notes', type: 'move', id, indexPath: [0, 0], newIndexPath: [0, 1] };
  const type: ObjectChangeType = change.type;
  client.on('controller/didChangeObject', (params) => {
    const moved: ObjectChangeType = params.type;
    const to: IndexPath | undefined = params.newIndexPath;
    void [moved, to];
  });
  // @ts-expect-error: didChangeSection params have no newIndexPath
  client.on('controller/didChangeSection', (params) => params.newIndexPath);
  const entry = METHODS['context/insert'];
  const discovered = await client.discover();
  const methods: number = discovered.methods.length;
  await client.request('some/extension', { anything: [1, 'two'] });
  // @ts-expect-error: 'sideways' is not an ObjectChangeType
  const wrong: ObjectChangeType = 'sideways';
  // @ts-expect-error: context/insert needs `entity`
  await client.request('context/insert', { context: 'main', values: {} });
  // @ts-expect-error: a wire object needs an id
  const noId: WireObject = { title: 'x' };
  // @ts-expect-error: deleteRule is an enum
  const badModel: Model = { entities: [{ name: 'A', relationships: { b: { destination: 'B', inverse: 'a', deleteRule: 'explode' } } }] };
  // @ts-expect-error: METHODS lists only the document's requests
  const missing = METHODS['context/explode'];
  // @ts-expect-error: the count is a number
  const countText: string = counted.count;
  void [serverName, entities, objects, saved, path, rows, mirror, mirroredIds, type, entry, methods, wrong, noId, badModel, missing, countText];
  return counted.count + (await client.shutdown() === 0 ? 0 : 1);
}

export async function handshake(): Promise<number> {
  const spawned = Client.spawn(null, { clientInfo: { name: CLIENT_INFO.name, version: CLIENT_INFO.version } });
  const ready = await spawned.ready;
  const served: number = ready ? ready.protocolVersion : PROTOCOL_VERSION;
  const manual = Client.spawn('/usr/local/bin/fetchd', { initialize: false });
  try {
    await manual.initialize();
  } catch (error) {
    if (error instanceof ProtocolVersionMismatch) {
      const kind: 'protocolVersionMismatch' = error.kind;
      const theirs: number | null = error.serverProtocolVersion;
      const wider: FetchdError = error;
      void [kind, theirs, wider];
    }
  }
  // @ts-expect-error: initialize is a boolean
  Client.spawn(null, { initialize: 'yes' });
  // @ts-expect-error: PROTOCOL_VERSION is the literal 1
  const two: 2 = PROTOCOL_VERSION;
  void two;
  return served + (manual.binary === null ? 1 : 0);
}
