// Finding the fetchd executable: an explicit path, $FETCHD, the SwiftPM build output of the
// enclosing repository (.build/debug or .build/release, newest first), or the PATH.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function buildOutputs(starts = [process.cwd(), dirname(fileURLToPath(import.meta.url))]) {
  const roots = [];
  for (const start of starts) {
    let dir = resolve(start);
    for (;;) {
      if (existsSync(join(dir, 'Package.swift')) && !roots.includes(dir)) roots.push(dir);
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  const found = [];
  for (const root of roots) {
    for (const config of ['debug', 'release']) {
      const candidate = join(root, '.build', config, 'fetchd');
      if (executable(candidate)) found.push(candidate);
    }
  }
  return found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

export function findFetchd(explicit) {
  if (explicit) return explicit;
  if (process.env.FETCHD) return process.env.FETCHD;
  const outputs = buildOutputs();
  if (outputs.length) return outputs[0];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'fetchd'))) return join(dir, 'fetchd');
  }
  throw new Error(
    'fetchd binary not found: pass its path, set FETCHD=/path/to/fetchd, run inside the repository after `swift build`, or put fetchd on the PATH',
  );
}
