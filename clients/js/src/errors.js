// Errors raised by the fetchd client.

/** A JSON-RPC error object returned by the server: code, message and data ({kind, ...}), as
 * protocol.md §3 (Errors) lists them. */
export class FetchdError extends Error {
  constructor(code, message, data) {
    super(`${message} (code ${code}${data !== undefined && data !== null ? ', ' + JSON.stringify(data) : ''})`);
    this.name = 'FetchdError';
    this.code = code;
    this.rpcMessage = message;
    this.data = data ?? null;
  }

  /** The `data.kind` the server names the problem with, or null. */
  get kind() {
    return this.data && typeof this.data === 'object' && typeof this.data.kind === 'string' ? this.data.kind : null;
  }

  static fromObject(error) {
    return new FetchdError(
      Number.isInteger(error.code) ? error.code : -32603,
      typeof error.message === 'string' ? error.message : 'malformed error object',
      error.data,
    );
  }
}

/** The peer broke JSON-RPC or the fetchd wire contract. */
export class ProtocolViolation extends Error {
  constructor(message) {
    super(message);
    this.name = 'ProtocolViolation';
  }
}

/** A cycle's batch cannot be applied to a TableMirror (protocol.md §11). */
export class MirrorError extends Error {
  constructor(message) {
    super(message);
    this.name = 'MirrorError';
  }
}

/** The server closed its output (exited) before answering. */
export class ConnectionClosed extends Error {
  constructor(message) {
    super(message);
    this.name = 'ConnectionClosed';
  }
}
