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

/** The server closed its output (exited) before answering, or could not be started. */
export class ConnectionClosed extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'ConnectionClosed';
  }
}

/**
 * fetchd's `initialize` answered with a protocolVersion other than the client's. Raised by the
 * client, not sent by fetchd: `code` is 0, outside JSON-RPC's codes, and `kind` is
 * "protocolVersionMismatch". Once raised, every request on that client rejects with it.
 */
export class ProtocolVersionMismatch extends FetchdError {
  constructor({ binary, serverInfo, serverProtocolVersion, clientInfo, clientProtocolVersion }) {
    const server = `fetchd${serverInfo?.version ? ` ${serverInfo.version}` : ''}${binary ? ` at ${binary}` : ''}`;
    const client = `this client (${clientInfo.name} ${clientInfo.version}) speaks protocol version ${clientProtocolVersion}`;
    const said =
      serverProtocolVersion === null
        ? 'does not say which protocol version it speaks (its initialize result has no protocolVersion)'
        : `speaks protocol version ${serverProtocolVersion}`;
    const message = `${server} ${said}; ${client}. Use a fetchd and a ${clientInfo.name} of the same release.`;
    super(0, message, { kind: 'protocolVersionMismatch', binary, serverProtocolVersion, clientProtocolVersion });
    this.message = message; // without FetchdError's "(code ...)" suffix: no JSON-RPC code here
    this.name = 'ProtocolVersionMismatch';
    this.serverProtocolVersion = serverProtocolVersion;
    this.clientProtocolVersion = clientProtocolVersion;
  }
}
