// fetchd JavaScript client: NSFetchedResultsController over JSON-RPC 2.0 on stdio.
export { Client } from './src/client.js';
export { Context, Batch, BatchCall } from './src/context.js';
export { Controller, ControllerCore } from './src/controller.js';
export { TableMirror } from './src/mirror.js';
export { ChangeBatch, Difference, INSERT, DELETE, MOVE, UPDATE, sectionInfoFromWire, sectionChangeFromWire, objectChangeFromWire } from './src/changes.js';
export { FetchdError, ProtocolViolation, ProtocolVersionMismatch, MirrorError, ConnectionClosed } from './src/errors.js';
export { LSP, NDJSON, encode, LSPDecoder, NDJSONDecoder } from './src/framing.js';
export { ProtocolCore } from './src/protocol.js';
export { METHODS, fetchRequest, sort } from './src/calls.js';
export { findFetchd } from './src/locate.js';
export { CLIENT_INFO, PROTOCOL_VERSION } from './src/version.js';
