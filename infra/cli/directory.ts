/**
 * `npm run directory -- plan <file> [--prune]`, `apply <file> [--prune]`, `export [--json]` (each with
 * [--table NAME --region REGION]): the directory as a file an operator owns (docs/directory-file.md). A thin adapter
 * over functions/core/directory: reads YAML or JSON, prints the changes one line each; only export's document goes to
 * standard output, every message to standard error. Exit 1 on an invalid file or a failed apply, 2 on bad usage.
 */
import { readFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import {
  applyDirectory,
  DirectoryBusyError,
  DirectoryConflictError,
  exportDirectory,
  type Plan,
  planDirectory,
} from '../../functions/core/directory/directory-service';
import { dynamoDirectoryStore } from '../../functions/core/directory/directory-store';
import { changeLine, countChanges } from '../../functions/core/directory/directory-target';
import { directoryToYaml, issueLines, readDirectoryText } from './directory-yaml';
import { openTargetTable, TARGET_OPTIONS, TARGET_USAGE, UsageError } from './target-table';

const USAGE = `usage: npm run directory -- plan <file> [--prune] | apply <file> [--prune] | export [--json]   ${TARGET_USAGE}`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { prune: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, ...TARGET_OPTIONS },
});
const [command, file, ...extra] = positionals;
const needsFile = command === 'plan' || command === 'apply';
if (
  !['plan', 'apply', 'export'].includes(command ?? '') ||
  (needsFile && !file) ||
  (!needsFile && file) ||
  extra.length
) {
  console.error(USAGE);
  process.exit(2);
}

const fail = (message: string, code = 1): never => {
  console.error(`directory ${command}: ${message}`);
  process.exit(code);
};

/** The file, parsed (issues of the text itself stop here, before any table is opened). */
function readFile(name: string) {
  let text: string;
  try {
    text = readFileSync(name, 'utf8');
  } catch (err) {
    return fail(`cannot read ${name}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const read = readDirectoryText(name, text);
  if (!read.ok) {
    for (const m of read.messages) console.error(m);
    return fail(`${name} is not valid YAML or JSON; nothing was written`);
  }
  return read;
}

const source = needsFile ? readFile(file as string) : undefined;
const table = await openTargetTable(values).catch((err: unknown) =>
  fail((err as Error).message, err instanceof UsageError ? 2 : 1),
);
const store = dynamoDirectoryStore(table);
const started = performance.now();

const printChanges = (plan: Plan) => {
  for (const c of plan.changes) console.log(changeLine(c));
  if (plan.unnamed > 0 && !values.prune) {
    console.error(`(${plan.unnamed} entries the table holds are not in the file: kept; --prune would remove them)`);
  }
};

const invalid = (issues: Parameters<typeof issueLines>[0]) => {
  for (const line of issueLines(issues, source?.ok ? source.where : () => String(file))) console.error(line);
  return fail(`${file} has ${issues.length} invalid ${issues.length === 1 ? 'entry' : 'entries'}; nothing was written`);
};

try {
  if (command === 'export') {
    const dir = await exportDirectory(store);
    process.stdout.write(values.json ? `${JSON.stringify(dir, null, 2)}\n` : directoryToYaml(dir));
    const counts = `${dir.users.length} users, ${dir.channels.length} channels, ${dir.contentOwners.length} content owners, ${dir.accounts.length} accounts, ${dir.properties.length} properties`;
    console.error(`Exported ${counts} from the ${table.description}.`);
  } else if (command === 'plan') {
    const plan = await planDirectory(store, source?.ok ? source.doc : undefined, { prune: values.prune });
    if (!plan.ok) invalid(plan.issues);
    else if (plan.changes.length === 0) {
      console.log('No changes.');
      printChanges(plan);
    } else {
      printChanges(plan);
      const n = countChanges(plan.changes);
      console.log(`Plan: ${n.add} to add, ${n.change} to change, ${n.remove} to remove (${table.description}).`);
    }
  } else {
    let shown = -1;
    const result = await applyDirectory(store, source?.ok ? source.doc : undefined, {
      prune: values.prune,
      holder: `${userInfo().username}@${hostname()} (pid ${process.pid})`,
      waitMs: 60_000,
      onWait: (heldBy) => console.error(`waiting for another apply to finish: ${heldBy}`),
      onPlan: printChanges,
      onProgress: ({ done, total, phase }) => {
        const percent = Math.floor((done / Math.max(total, 1)) * 10);
        if (percent === shown) return;
        shown = percent;
        console.error(`applying: ${done}/${total} writes (${phase})`);
      },
    });
    if (!result.ok) invalid(result.issues);
    else if (result.changes.length === 0 && result.writes === 0) console.log('No changes.');
    else {
      const n = countChanges(result.changes);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        `Applied: ${n.add} added, ${n.change} changed, ${n.remove} removed (${result.writes} writes, ${seconds} s, ${table.description}).`,
      );
    }
  }
} catch (err) {
  if (err instanceof DirectoryBusyError || err instanceof DirectoryConflictError) fail(err.message);
  throw err;
} finally {
  await table.close();
}
process.exit(0);
