// TypeScript's compiler for the type checks: `tsc` on PATH (Debian's node-typescript, which
// scripts/test-js.sh installs when missing). Without it those tests skip, saying so.
import { spawnSync } from 'node:child_process';

/** The tsc command, or null when there is none. */
export function findTsc() {
  const tsc = process.env.TSC || 'tsc';
  const probe = spawnSync(tsc, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? tsc : null;
}

/** Runs `tsc -p project`; resolves to {status, output}. */
export function runTsc(tsc, project) {
  const run = spawnSync(tsc, ['-p', project], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

export const NO_TSC = 'tsc not found (scripts/test-js.sh installs node-typescript)';
