/**
 * Google's system parameters, accepted by every operation (api-contract.md §A.0): read and checked here, once, by the
 * handler wrapper, and taken out of the query before an operation sees it. The same table is the `parameters` block
 * of every discovery document.
 */
import { invalidArgument } from '../core/errors';
import type { ResponseFields } from '../schemas';
import { checkFields, FieldSelectionError, parseFields, type Selection } from './field-selector';

export interface SystemParameterDef {
  readonly type: 'string' | 'boolean';
  readonly description: string;
  readonly enum?: readonly string[];
  readonly enumDescriptions?: readonly string[];
  readonly default?: string;
}

// biome-ignore format: word list
const NAMES = ['$.xgafv', 'access_token', 'alt', 'callback', 'fields', 'key', 'oauth_token', 'prettyPrint', 'quotaUser',
  'uploadType', 'upload_protocol'] as const;
type SystemParameterName = (typeof NAMES)[number];
/** The names the handler wrapper takes out of every query (the table below, without its descriptions). */
const SYSTEM_PARAMETER_NAMES: ReadonlySet<string> = new Set(NAMES);

/** The discovery documents' `parameters` block: every name above, described (type-checked to be the same names). */
export const SYSTEM_PARAMETERS = {
  '$.xgafv': {
    type: 'string',
    description: 'Error format version (accepted and ignored: errors always use the v2 shape).',
    enum: ['1', '2'],
    enumDescriptions: ['v1 error format', 'v2 error format'],
  },
  access_token: { type: 'string', description: 'Never a credential here: send `Authorization: Bearer <token>`.' },
  alt: {
    type: 'string',
    description: 'Response format. Only `json` is served.',
    default: 'json',
    enum: ['json', 'media', 'proto'],
    enumDescriptions: [
      'Responses with Content-Type of application/json',
      'Media download (not served: 400)',
      'Protocol buffers (not served: 400)',
    ],
  },
  callback: { type: 'string', description: 'JSONP callback: not served (400); browsers use CORS.' },
  fields: { type: 'string', description: 'Selector of the fields to include in a partial response.' },
  key: { type: 'string', description: 'API key: accepted and ignored; it never replaces the OAuth 2.0 token.' },
  oauth_token: { type: 'string', description: 'Never a credential here: send `Authorization: Bearer <token>`.' },
  prettyPrint: {
    type: 'boolean',
    description: 'Indented JSON (the default); `false` gives compact JSON.',
    default: 'true',
  },
  quotaUser: { type: 'string', description: 'Quota accounting label: accepted and ignored.' },
  uploadType: { type: 'string', description: 'Legacy media upload protocol: accepted and ignored (no uploads).' },
  upload_protocol: { type: 'string', description: 'Media upload protocol: accepted and ignored (no uploads).' },
} as const satisfies Record<SystemParameterName, SystemParameterDef>;

export interface SystemParameters {
  /** Absent: the whole response. */
  readonly fields?: Selection;
  readonly prettyPrint: boolean;
}

const where = (name: string) => ({ location: name, locationType: 'parameter' as const });
const badValue = (name: string, value: string, why: string) =>
  invalidArgument('invalidParameter', `Invalid value '${value}' for parameter ${name}. ${why}`, where(name));

function readBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badValue(name, value, 'Expected true or false.');
}

/**
 * Splits the system parameters off `query` and checks them: an unsupported `alt`, any `callback`, a malformed
 * `prettyPrint` or `$.xgafv`, and a `fields` selector the response schema does not have are 400 invalidParameter,
 * before the operation runs. `fieldMask` is the X-Goog-FieldMask header, used when there is no `fields` parameter.
 * Without `response` (free-form answers) only the selector's syntax is checked.
 */
export function readSystemParameters(
  query: Readonly<Record<string, string>>,
  fieldMask: string | undefined,
  response: ResponseFields | undefined,
): { system: SystemParameters; query: Record<string, string> } {
  const rest: Record<string, string> = {};
  const sys: Partial<Record<SystemParameterName, string>> = {};
  for (const [name, value] of Object.entries(query)) {
    if (SYSTEM_PARAMETER_NAMES.has(name)) sys[name as SystemParameterName] = value;
    else rest[name] = value;
  }

  if (sys.alt && sys.alt !== 'json') throw badValue('alt', sys.alt, 'This API answers only alt=json.');
  if (sys.callback) {
    throw invalidArgument(
      'invalidParameter',
      'JSONP (the callback parameter) is not supported: call the API from the browser with CORS.',
      where('callback'),
    );
  }
  const xgafv = sys['$.xgafv'];
  if (xgafv && xgafv !== '1' && xgafv !== '2') throw badValue('$.xgafv', xgafv, 'Expected 1 or 2.');
  const prettyPrint = readBoolean('prettyPrint', sys.prettyPrint, true);

  const selector = sys.fields || fieldMask?.trim() || undefined;
  let fields: Selection | undefined;
  if (selector !== undefined) {
    try {
      fields = parseFields(selector);
      if (response) checkFields(fields, response.schema, response.resolve);
    } catch (err) {
      if (err instanceof FieldSelectionError) throw invalidArgument('invalidParameter', err.message, where('fields'));
      throw err;
    }
  }
  return { system: { prettyPrint, ...(fields ? { fields } : {}) }, query: rest };
}
