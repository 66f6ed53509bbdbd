/**
 * Child process of the reports benchmark: writes a content owner's exports (reports-co-options.ts, at the size whose
 * key is the second argument) into the folder given as the first and prints a JSON summary, so the content owner is
 * generated on the second core while the channel world is generated on the first. Run by reports-co.ts, not by hand.
 */
import { writeAllExports } from '../infra/generator/export-world';
import { contentOwnerOptions } from './reports-co-options';
import { allSizes } from './reports-sizes';

const [dir, key] = process.argv.slice(2);
const size = allSizes().find((s) => s.key === key);
if (!dir || !size) throw new Error('usage: reports-co-generate.ts <output folder> <size key>');
const started = performance.now();
const summary = await writeAllExports(contentOwnerOptions(size.contentOwner), dir);
process.stdout.write(
  `${JSON.stringify({
    files: summary.files,
    rows: summary.rows,
    rates: summary.rates?.rows ?? 0,
    seconds: (performance.now() - started) / 1000,
  })}\n`,
);
