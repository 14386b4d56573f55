// Printing helpers the samples share: each notification as it arrives, and the table a
// controller's TableMirror holds after the cycle.
import { pathToFileURL } from 'node:url';

export function describe(method, params) {
  const name = method.split('/')[1];
  if (name === 'didChangeSection') return `${name} ${params.type} #${params.sectionIndex} '${params.section.name}'`;
  if (name === 'didChangeObject') {
    const where = [params.indexPath, params.newIndexPath].filter(Boolean).map((p) => `[${p[0]},${p[1]}]`).join(' -> ');
    return `${name} ${params.type} ${params.id} ${where}`;
  }
  return name;
}

/** The table as text: section names (when sectioned), one line per row, optional index bar. */
export function render(controller, cell, { empty, indexBar = false } = {}) {
  const mirror = controller.mirror;
  if (mirror.count === 0 && empty !== undefined) return [`  (${empty})`];
  const sectioned = controller.sectionNameKeyPath !== null;
  const lines = [];
  for (const section of mirror.sections) {
    if (sectioned) lines.push(`  ${section.name || '(no name)'}`);
    for (const row of section.rows) lines.push(sectioned ? `    ${cell(row)}` : `  ${cell(row)}`);
  }
  if (indexBar) lines.push(`  index: ${mirror.sectionIndexTitles().join(' ')}`);
  return lines;
}

/** The mirror must equal the controller's rows fetched fresh from the server. */
export async function verify(controller) {
  const fresh = await controller.fetched({ keys: controller.notify?.keys }); // rows carry what notifications carry
  const mirrored = controller.mirror.sections.map((s) => s.rows);
  const infos = await controller.sections();
  if (JSON.stringify(fresh) !== JSON.stringify(mirrored) || JSON.stringify(infos) !== JSON.stringify(controller.mirror.sectionInfos())) {
    throw new Error(`${controller.name}: mirror ${JSON.stringify(mirrored)} differs from the server's rows ${JSON.stringify(fresh)}`);
  }
}

/** Prints "== step" headers, the notifications of each step, then the table. */
export class Steps {
  constructor(client, write = (text) => process.stdout.write(text + '\n')) {
    this.write = write;
    client.on('notification', (method, params) => this.line(`  <- ${describe(method, params)}`));
  }

  line(text) {
    this.write(text);
  }

  step(title) {
    this.line(`\n== ${title}`);
  }

  table(lines) {
    for (const text of lines) this.line(text);
  }
}

/** Deterministic ISO 8601 times, so every run prints the same thing. */
export function stamp(minute) {
  const h = String(9 + Math.floor(minute / 60)).padStart(2, '0');
  const m = String(minute % 60).padStart(2, '0');
  return `2026-11-23T${h}:${m}:00Z`;
}

export const pad = (text, width) => String(text).padEnd(width);

/** Run `run({binary})` when the sample is the main module (`node samples/x.js --fetchd PATH`). */
export function runIfMain(meta, run) {
  if (process.argv[1] && pathToFileURL(process.argv[1]).href === meta.url) {
    const at = process.argv.indexOf('--fetchd'); // (no util.parseArgs: Node 18.0-18.2 lack it)
    run(at >= 0 ? process.argv[at + 1] : undefined).catch((error) => {
      console.error(error);
      process.exitCode = 1;
    });
  }
}
