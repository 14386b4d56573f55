// The few Node declarations index.d.ts uses, for `tsc --noEmit` without @types/node (no npm
// registry here, and Debian ships @types/node only inside its own nodejs package). Only
// what the client's declarations and the usage files touch; not a model of Node's API.
declare class Buffer extends Uint8Array {}

declare namespace NodeJS {
  interface ProcessEnv {
    [key: string]: string | undefined;
  }
}

declare module 'node:events' {
  export class EventEmitter {
    on(event: string | symbol, listener: (...args: any[]) => void): this;
    once(event: string | symbol, listener: (...args: any[]) => void): this;
    off(event: string | symbol, listener: (...args: any[]) => void): this;
    emit(event: string | symbol, ...args: any[]): boolean;
  }
}

declare module 'node:stream' {
  import { EventEmitter } from 'node:events';
  export class Readable extends EventEmitter {}
  export class Writable extends EventEmitter {}
}

declare module 'node:child_process' {
  import { EventEmitter } from 'node:events';
  export class ChildProcess extends EventEmitter {
    readonly pid?: number;
  }
}
