/**
 * The directory file as text: YAML (JSON is YAML too) read with the place of every node, so an issue names its line;
 * written in one canonical layout, so an export applied back reads identically (docs/directory-file.md).
 */
import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { DirectoryFile, DirectoryIssue, DocPath } from '../../functions/core/directory/directory-file';
import { formatPath } from '../../functions/core/directory/directory-file';

export type ReadText = { ok: true; doc: unknown; where(path: DocPath): string } | { ok: false; messages: string[] };

/** Parses `text`; `where(path)` is `file:line:column` of the deepest node of `path` the document has. */
export function readDirectoryText(file: string, text: string): ReadText {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      messages: doc.errors.map((e) => {
        const at = e.linePos?.[0];
        const message = (e.message.split('\n')[0] as string).replace(/ at line \d+, column \d+:?$/, '');
        return `${file}${at ? `:${at.line}:${at.col}` : ''}: ${message}`;
      }),
    };
  }
  const where = (path: DocPath): string => {
    let node: unknown = doc.contents;
    let found = node as Node | undefined;
    for (const step of path) {
      if (!isMap(node) && !isSeq(node)) break;
      node = (node as { get(k: unknown, keep: true): unknown }).get(step, true);
      if (node === undefined) break;
      found = node as Node;
    }
    const at = found?.range ? lines.linePos(found.range[0]) : undefined;
    return at ? `${file}:${at.line}:${at.col}` : file;
  };
  return { ok: true, doc: doc.toJS(), where };
}

export const issueLines = (issues: readonly DirectoryIssue[], where: (path: DocPath) => string): string[] =>
  issues.map((i) => `${where(i.path)}: ${formatPath(i.path)}: ${i.message}`);

const WIDTH = 120;
const RESERVED = /^(true|false|yes|no|on|off|null|~|y|n)$/i;
/** Plain when YAML reads it back as this very string; JSON-quoted otherwise (JSON strings are YAML). */
const scalar = (value: string): string =>
  /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(value) && !RESERVED.test(value) ? value : JSON.stringify(value);

/** `key: [a, b, c]`, wrapped under the key when long. */
function flowList(indent: string, key: string, values: readonly string[]): string[] {
  const head = `${indent}${key}: [`;
  const out: string[] = [];
  let line = head;
  values.forEach((v, i) => {
    const piece = `${scalar(v)}${i < values.length - 1 ? ',' : ']'}`;
    if (line.length + piece.length + 1 > WIDTH && line !== head) {
      out.push(line.trimEnd());
      line = `${indent}  `;
    }
    line += line.endsWith('[') || line.trim() === '' ? piece : ` ${piece}`;
  });
  out.push(line);
  return out;
}

/** One entity as a YAML list item: scalars as `key: value`, lists of strings as flow lists, empty lists left out. */
function entity(fields: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const indent = out.length === 0 ? '  - ' : '    ';
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      if (typeof value[0] === 'string') out.push(...flowList(indent, key, value as string[]));
      else {
        out.push(`${indent}${key}:`);
        for (const item of value as Record<string, string>[]) {
          Object.entries(item).forEach(([k, v], i) => {
            out.push(`      ${i === 0 ? '- ' : '  '}${k}: ${scalar(v)}`);
          });
        }
      }
    } else if (value !== undefined) out.push(`${indent}${key}: ${scalar(String(value))}`);
  }
  return out;
}

/** The canonical text of a directory (give it in canonical order: the service's export is). */
export function directoryToYaml(dir: DirectoryFile): string {
  const out: string[] = [];
  for (const section of ['users', 'channels', 'contentOwners', 'accounts', 'properties'] as const) {
    const list = dir[section] as unknown as Record<string, unknown>[];
    if (list.length === 0) {
      out.push(`${section}: []`);
      continue;
    }
    out.push(`${section}:`);
    for (const e of list) out.push(...entity(e));
  }
  return `${out.join('\n')}\n`;
}
