/**
 * Google's partial responses (the `fields` system parameter): `kind,items(id,snippet/title)`, `items/id`, `*`.
 * A selector is parsed into a tree, checked against the operation's response schema before the operation runs (an
 * unknown field is refused, never silently dropped), then applied to the response.
 *
 *   list := item (',' item)*      item := path ('(' list ')')?      path := name ('/' name)*      name := '*' | word
 */
import type { JsonSchema, SchemaName } from '../schemas';

/** name → sub-selection, or `true` for the whole value. The key `*` stands for every field of that level. */
export type Selection = ReadonlyMap<string, Selection | true>;
type MutableSelection = Map<string, MutableSelection | true>;

export class FieldSelectionError extends Error {
  override name = 'FieldSelectionError';
}

const WORD = /^[A-Za-z0-9_$-]+/;
const invalid = (what: string) => new FieldSelectionError(`Invalid field selection ${what}`);

function merge(into: MutableSelection, name: string, sub: MutableSelection | true): void {
  const existing = into.get(name);
  if (existing === true || sub === true || existing === undefined) {
    into.set(name, existing === true || sub === true ? true : sub);
    return;
  }
  for (const [k, v] of sub) merge(existing, k, v);
}

/** Parses a `fields` value; throws FieldSelectionError naming the selector when it is malformed. */
export function parseFields(text: string): Selection {
  let at = 0;
  const fail = () => invalid(text);

  const list = (): MutableSelection => {
    const out: MutableSelection = new Map();
    for (;;) {
      const path: string[] = [];
      for (;;) {
        if (text[at] === '*') {
          path.push('*');
          at++;
        } else {
          const word = WORD.exec(text.slice(at))?.[0];
          if (!word) throw fail();
          path.push(word);
          at += word.length;
        }
        if (text[at] !== '/') break;
        at++;
      }
      let sub: MutableSelection | true = true;
      if (text[at] === '(') {
        at++;
        sub = list();
        if (text[at] !== ')') throw fail();
        at++;
      }
      // a/b/c(sub) is a → b → c → sub.
      let leaf: MutableSelection | true = sub;
      for (let i = path.length - 1; i > 0; i--) leaf = new Map([[path[i] as string, leaf]]);
      merge(out, path[0] as string, leaf);
      if (text[at] !== ',') return out;
      at++;
    }
  };

  const tree = list();
  if (at !== text.length) throw fail();
  return tree;
}

export type SchemaResolver = (name: SchemaName) => JsonSchema;

/** Follows `$ref`s and array item schemas down to the schema that holds fields (or a scalar). */
function holder(schema: JsonSchema, resolve: SchemaResolver): JsonSchema {
  let s = schema;
  for (let depth = 0; depth < 32; depth++) {
    if (s.$ref) s = resolve(s.$ref);
    else if (s.type === 'array' && s.items) s = s.items;
    else return s;
  }
  return s;
}

/** Throws FieldSelectionError for the first selected field `schema` does not have. Free-form objects take any. */
export function checkFields(selection: Selection, schema: JsonSchema, resolve: SchemaResolver, prefix = ''): void {
  const s = holder(schema, resolve);
  for (const [name, sub] of selection) {
    const path = `${prefix}${name}`;
    if (s.type !== 'object') throw invalid(path); // a scalar (or `any`) value has no fields to select
    if (name === '*') {
      if (sub !== true)
        for (const field of Object.values(s.properties ?? {})) checkFields(sub, field, resolve, `${path}/`);
      continue;
    }
    const field = s.properties?.[name] ?? s.additionalProperties;
    if (!field) throw invalid(path);
    if (sub !== true) checkFields(sub, field, resolve, `${path}/`);
  }
}

function combined(a: Selection | true | undefined, b: Selection | true | undefined): Selection | true | undefined {
  if (a === undefined) return b;
  if (b === undefined || a === true || b === true) return a === true || b === true ? true : a;
  const out: MutableSelection = new Map();
  for (const sel of [a, b]) for (const [k, v] of sel) merge(out, k, v as MutableSelection | true);
  return out;
}

/** The parts of `value` the selection names, in the value's own key order; lists are filtered element by element. */
export function applyFields(value: unknown, selection: Selection | true): unknown {
  if (selection === true) return value;
  if (Array.isArray(value)) return value.map((v) => applyFields(v, selection));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = combined(selection.get(key), selection.get('*'));
    if (sub !== undefined) out[key] = applyFields(v, sub);
  }
  return out;
}
