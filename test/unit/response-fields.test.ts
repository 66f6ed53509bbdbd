/**
 * The schemas each handler checks a `fields` selector against (schemas.ts `*_FIELDS`, one constant per response so a
 * bundle carries only its own): each holds every schema its response refers to, at any depth, and every response the
 * route table names has one.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import * as schemaModule from '../../functions/schemas';
import { type JsonSchema, type ResponseFields, type SchemaName, schemaNamed } from '../../functions/schemas';

const FIELDS = Object.entries(schemaModule).filter(([name]) => name.endsWith('_FIELDS')) as [string, ResponseFields][];

/** Every `$ref` reachable from `schema` through the full table. */
function refsOf(schema: JsonSchema, seen = new Set<SchemaName>()): Set<SchemaName> {
  const visit = (s: JsonSchema | undefined): void => {
    if (!s) return;
    if (s.$ref && !seen.has(s.$ref)) {
      seen.add(s.$ref);
      visit(schemaNamed(s.$ref));
    }
    visit(s.items);
    visit(s.additionalProperties);
    for (const p of Object.values(s.properties ?? {})) visit(p);
  };
  visit(schema);
  return seen;
}

describe('response fields', () => {
  it('finds the constants (the checks below can fail)', () => {
    expect(FIELDS.map(([name]) => name)).toContain('QUERY_RESPONSE_FIELDS');
    expect(refsOf(schemaNamed('ListGroupsResponse'))).toEqual(
      new Set(['Group', 'GroupContentDetails', 'GroupSnippet', 'Errors', 'ErrorProto']),
    );
  });

  it.each(FIELDS)('%s resolves every schema its response refers to, as the table has it', (_name, fields) => {
    expect(fields.schema).toBe(schemaNamed(fields.schema.id));
    for (const ref of refsOf(fields.schema)) expect(fields.resolve(ref), ref).toBe(schemaNamed(ref));
  });

  it('a schema missing from a list is an error, not a silent pass', () => {
    expect(() => schemaModule.PROPERTY_FIELDS.resolve('Group')).toThrow(/refers to Group/);
  });

  it('every response the route table names has its fields', () => {
    const named = new Set(FIELDS.map(([, f]) => f.schema.id));
    for (const route of routes) if ('response' in route) expect(named.has(route.response), route.id).toBe(true);
  });
});
