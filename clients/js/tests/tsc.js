// TypeScript's compiler for the type checks: `tsc` on PATH (Debian's node-typescript, which
// scripts/test-js.sh installs when missing). Without it those tests fail, saying so.
import { spawnSync } from 'node:child_process';

export const NO_TSC = 'tsc not found (scripts/test-js.sh installs node-typescript)';

/** The tsc command; throws when there is none (the type checks are never skipped). */
export function findTsc() {
  const tsc = process.env.TSC || 'tsc';
  const probe = spawnSync(tsc, ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(NO_TSC);
  return tsc;
}

/** Runs `tsc -p project`; resolves to {status, output}. */
export function runTsc(tsc, project) {
  const run = spawnSync(tsc, ['-p', project], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}


