#!/usr/bin/env node
// npm pack takes only files inside clients/js, and the project's LICENSE is at the repository
// root (npm also skips a symlink to it). prepack copies it here so the tarball carries the
// license text; postpack removes the copy (.gitignore keeps it out of git meanwhile).
//   node tools/license.js copy | remove
import { copyFileSync, existsSync, rmSync } from 'node:fs';

const root = new URL('../../../LICENSE', import.meta.url);
const here = new URL('../LICENSE', import.meta.url);
const action = process.argv[2];
if (action === 'copy') {
  if (existsSync(root)) copyFileSync(root, here);
} else if (action === 'remove') {
  rmSync(here, { force: true });
} else {
  process.stderr.write('usage: node tools/license.js copy|remove\n');
  process.exitCode = 2;
}
