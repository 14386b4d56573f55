// What the client says about itself. Its name and version are read from package.json, the
// one place they are written; PROTOCOL_VERSION is the `protocolVersion` of fetchd's
// `initialize` result this client is written for (protocol.md §2).
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The clientInfo `initialize` sends by default: {name, version} of this package. */
export const CLIENT_INFO = Object.freeze({ name: pkg.name, version: pkg.version });

export const PROTOCOL_VERSION = 1;
