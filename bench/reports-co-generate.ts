/**
 * Child process of the reports benchmark: writes the content owner's exports (reports-co.ts contentOwnerOptions)
 * into the folder given as the first argument and prints a JSON summary, so the content owner is generated on the
 * second core while the channel world is generated on the first. Run by reports-co.ts, not by hand.
 */
import { writeAllExports } from '../infra/generator/export-world';
import { contentOwnerOptions } from './reports-co-options';

const dir = process.argv[2];
if (!dir) throw new Error('usage: reports-co-generate.ts <output folder>');
const started = performance.now();
const summary = await writeAllExports(contentOwnerOptions(), dir);
process.stdout.write(
  `${JSON.stringify({
    files: summary.files,
    rows: summary.rows,
    rates: summary.rates?.rows ?? 0,
    seconds: (performance.now() - started) / 1000,
  })}\n`,
);
