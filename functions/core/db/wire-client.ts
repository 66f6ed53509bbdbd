/**
 * lib-dynamodb's commands sent over DynamoDB's JSON protocol without the SDK's middleware stack. Through the SDK a
 * call costs about 0.6 ms of Node's processor here against 0.25 over plain HTTP (docs/scale.md, "The 1k latency
 * floor"): the stack is resolved anew for every command and each attribute walks a schema-driven serde. A report makes
 * two calls and a one-file load about fifteen, so that was a fifth of either.
 *
 * Kept from the SDK: the client's configuration (credentials provider, region, endpoint rules, SHA-256, retry
 * strategy), its SigV4 signer, lib-dynamodb's marshalling rules (each command's own key nodes) and util-dynamodb's
 * marshall. This module's own: the HTTP request, the JSON, and the unmarshalling of what comes back (binary attributes
 * decoded from base64 once). Errors carry what the SDK's do (`name`, `message`, `$fault`, `$metadata`, the modelled
 * members such as `CancellationReasons` and `Item`, attribute values low-level), so the repositories and
 * aws-sdk-client-mock see no difference. A large answer is parsed with its binary values lifted out of its bytes
 * (lifted-json.ts), never as one long string.
 */
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, type marshallOptions } from '@aws-sdk/util-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { SignatureV4 } from '@smithy/signature-v4';
import { parseLifted } from './lifted-json';

/** The operation each document command stands for (by class: bundles are minified, so not by name). */
const OPERATIONS: readonly [new (...args: never[]) => unknown, string][] = [
  [GetCommand, 'GetItem'],
  [PutCommand, 'PutItem'],
  [UpdateCommand, 'UpdateItem'],
  [DeleteCommand, 'DeleteItem'],
  [QueryCommand, 'Query'],
  [ScanCommand, 'Scan'],
  [BatchGetCommand, 'BatchGetItem'],
  [BatchWriteCommand, 'BatchWriteItem'],
  [TransactGetCommand, 'TransactGetItems'],
  [TransactWriteCommand, 'TransactWriteItems'],
];

/** lib-dynamodb's description of where attribute values sit in a command's input or output. */
type KeyNodes = { readonly [key: string]: KeyNodes } | readonly never[] | null;

interface DocumentCommand {
  readonly input: Record<string, unknown>;
  readonly inputKeyNodes: KeyNodes;
  readonly outputKeyNodes: KeyNodes;
}

/** The DynamoDB operation a command is sent as, or undefined for one this module leaves to the SDK. */
export function operationOf(command: unknown): string | undefined {
  for (const [type, operation] of OPERATIONS) if (command instanceof type) return operation;
  return undefined;
}

export interface WireClient {
  send(operation: string, command: unknown): Promise<Record<string, unknown>>;
  destroy(): void;
}

interface RetryToken {
  getRetryCount(): number;
  getRetryDelay(): number;
}
interface RetryStrategy {
  acquireInitialRetryToken(scope: string): Promise<RetryToken>;
  refreshRetryTokenForRetry(token: RetryToken, info: { error: unknown; errorType: string }): Promise<RetryToken>;
  recordSuccess(token: RetryToken): void;
}

/** The resolved parts of a DynamoDBClient's configuration this module uses. */
interface ClientConfig {
  credentials: () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>;
  region: () => Promise<string>;
  sha256: ConstructorParameters<typeof SignatureV4>[0]['sha256'];
  endpoint?: () => Promise<{ protocol: string; hostname: string; port?: number; path: string }>;
  isCustomEndpoint?: boolean;
  ignoreConfiguredEndpointUrls?: boolean;
  /** AWS_ENDPOINT_URL_DYNAMODB or the shared config's endpoint_url, as the SDK resolves it per call. */
  serviceConfiguredEndpoint?: () => Promise<string | undefined>;
  endpointProvider: (params: Record<string, unknown>) => { url: URL };
  useFipsEndpoint: () => Promise<boolean>;
  useDualstackEndpoint: () => Promise<boolean>;
  retryStrategy: () => Promise<RetryStrategy>;
  /** How long a request's socket may sit idle (the SDK's service default: 300 s; undefined when disabled). */
  defaultSocketTimeout?: number;
}

interface Target {
  https: boolean;
  hostname: string;
  port?: number;
  path: string;
}

export function createWireClient(client: DynamoDBClient, marshalling: marshallOptions): WireClient {
  const config = client.config as unknown as ClientConfig;
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 50 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }),
  };
  const options: marshallOptions = { ...marshalling, convertTopLevelContainer: true };
  let setup: Promise<{ target: Target; signer: SignatureV4; retry: RetryStrategy }> | undefined;

  const resolve = async () => {
    const region = await config.region();
    const fromUrl = (url: URL): Target => ({
      https: url.protocol === 'https:',
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname || '/',
    });
    // The SDK's order: an endpoint given to the client, then one configured for the service, then the rules.
    const configured =
      config.isCustomEndpoint || config.ignoreConfiguredEndpointUrls
        ? undefined
        : await config.serviceConfiguredEndpoint?.();
    let target: Target;
    if (config.isCustomEndpoint && config.endpoint) {
      const e = await config.endpoint();
      target = {
        https: e.protocol === 'https:',
        hostname: e.hostname,
        ...(e.port ? { port: e.port } : {}),
        path: e.path || '/',
      };
    } else if (configured) {
      target = fromUrl(new URL(configured));
    } else {
      const { url } = config.endpointProvider({
        Region: region,
        UseFIPS: await config.useFipsEndpoint(),
        UseDualStack: await config.useDualstackEndpoint(),
      });
      target = fromUrl(url);
    }
    const signer = new SignatureV4({
      credentials: config.credentials,
      region,
      service: 'dynamodb',
      sha256: config.sha256,
    });
    return { target, signer, retry: await config.retryStrategy() };
  };

  const attempt = async (target: Target, signer: SignatureV4, operation: string, body: string) => {
    const headers: Record<string, string> = {
      host: target.port ? `${target.hostname}:${target.port}` : target.hostname,
      'content-type': 'application/x-amz-json-1.0',
      'content-length': String(Buffer.byteLength(body)),
      'x-amz-target': `DynamoDB_20120810.${operation}`,
    };
    const signed = await signer.sign({
      method: 'POST',
      protocol: target.https ? 'https:' : 'http:',
      hostname: target.hostname,
      ...(target.port ? { port: target.port } : {}),
      path: target.path,
      query: {},
      headers,
      body,
    });
    const agent = target.https ? agents.https : agents.http;
    return post(target, signed.headers as Record<string, string>, body, agent, config.defaultSocketTimeout);
  };

  return {
    async send(operation, command) {
      const { input, inputKeyNodes, outputKeyNodes } = command as DocumentCommand;
      const marshalled = walk(input, inputKeyNodes, (v) => marshall(v, options)) as Record<string, unknown>;
      // The SDK fills in a transaction's idempotency token, so that its retries (same body) apply it once.
      if (operation === 'TransactWriteItems') marshalled.ClientRequestToken ??= randomUUID();
      const body = JSON.stringify(marshalled, base64Replacer);
      setup ??= resolve().catch((error: unknown) => {
        setup = undefined;
        throw error;
      });
      const { target, signer, retry } = await setup;
      let token = await retry.acquireInitialRetryToken('');
      let totalRetryDelay = 0;
      for (;;) {
        try {
          const response = await attempt(target, signer, operation, body);
          const { value: output, binaries } = parseBody(response);
          if (response.status !== 200) throw serviceError(response, output);
          retry.recordSuccess(token);
          const unmarshalled = walk(output, outputKeyNodes, (v) => toNative(v, binaries)) as Record<string, unknown>;
          unmarshalled.$metadata = metadata(response, token.getRetryCount() + 1, totalRetryDelay);
          return unmarshalled;
        } catch (error) {
          const failure = error as { $metadata?: Record<string, unknown> };
          try {
            token = await retry.refreshRetryTokenForRetry(token, { error, errorType: errorType(error) });
          } catch {
            failure.$metadata = { ...failure.$metadata, attempts: token.getRetryCount() + 1, totalRetryDelay };
            throw error;
          }
          const delay = token.getRetryDelay();
          totalRetryDelay += delay;
          if (delay > 0) await new Promise((done) => setTimeout(done, delay));
        }
      }
    },
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

interface Response {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/**
 * One POST. A socket idle for `idleMs` (the SDK's default socket timeout) ends the attempt with a TimeoutError, which
 * the retry strategy retries, as the SDK's handler does: a dropped connection never hangs a call until Lambda's own
 * timeout.
 */
function post(
  target: Target,
  headers: Record<string, string>,
  body: string,
  agent: HttpAgent,
  idleMs: number | undefined,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = (target.https ? httpsRequest : httpRequest)(
      { method: 'POST', hostname: target.hostname, port: target.port, path: target.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    request.on('error', reject);
    if (idleMs !== undefined && idleMs > 0) {
      request.setTimeout(idleMs, () =>
        request.destroy(
          Object.assign(new Error(`DynamoDB's socket was idle for ${idleMs} ms`), { name: 'TimeoutError' }),
        ),
      );
    }
    request.end(body);
  });
}

/**
 * The answer's JSON. A large answer has its binary values lifted out (lifted-json.ts), given back by toNative; an
 * error's is parsed whole (its items are decoded by serviceError).
 */
function parseBody(response: Response): { value: Record<string, unknown>; binaries: readonly Uint8Array[] } {
  const { body } = response;
  try {
    if (body.length === 0) return { value: {}, binaries: [] };
    if (response.status !== 200) return { value: JSON.parse(body.toString('utf8')), binaries: [] };
    const { value, binaries } = parseLifted(body);
    return { value: value as Record<string, unknown>, binaries };
  } catch {
    // Not DynamoDB's JSON (a proxy's page, a cut-off answer): an error of the status it came with.
    throw Object.assign(new Error(`DynamoDB answered ${response.status} with a body that is not JSON`), {
      name: response.status >= 500 ? 'InternalServerError' : 'UnknownError',
      $fault: response.status >= 500 ? 'server' : 'client',
      $metadata: metadata(response),
    });
  }
}

const metadata = (response: Response, attempts?: number, totalRetryDelay?: number) => ({
  httpStatusCode: response.status,
  requestId: response.headers['x-amzn-requestid'] as string | undefined,
  ...(attempts === undefined ? {} : { attempts, totalRetryDelay }),
});

/** DynamoDB's error body as the SDK presents it: the type's last part as the name, modelled members kept. */
function serviceError(response: Response, body: Record<string, unknown>): Error {
  const type = String(body.__type ?? response.headers['x-amzn-errortype'] ?? 'UnknownError');
  const name = type.slice(type.lastIndexOf('#') + 1).split(':')[0] as string;
  const { __type: _, message, Message, ...members } = body;
  if (members.Item) members.Item = decodeItem(members.Item);
  if (Array.isArray(members.CancellationReasons)) {
    for (const reason of members.CancellationReasons as { Item?: unknown }[]) {
      if (reason?.Item) reason.Item = decodeItem(reason.Item);
    }
  }
  return Object.assign(new Error(String(message ?? Message ?? name)), members, {
    name,
    $fault: response.status >= 500 ? 'server' : 'client',
    $metadata: metadata(response),
  });
}

function errorType(error: unknown): string {
  const e = error as Parameters<typeof isThrottlingError>[0];
  if (isThrottlingError(e)) return 'THROTTLING';
  if (isTransientError(e)) return 'TRANSIENT';
  if (isServerError(e)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}

/** Binary values (B, and each of BS) go out as base64; `this[key]` is the value before Buffer's own toJSON. */
function base64Replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64');
  return value;
}

/**
 * lib-dynamodb's walk of a command's input or output (processKeysInObj there): `{}` marks a map whose every value is
 * an attribute value, `[]` a list of them, `*` every member of a map or list, `null` the value itself.
 */
function walk(value: unknown, nodes: KeyNodes, convert: (v: unknown) => unknown): unknown {
  if (value === undefined) return undefined;
  if (nodes === null) return convert(value);
  const keys = Object.keys(nodes);
  if (keys.length === 0) {
    if (Array.isArray(value)) return value.map((v) => walk(v, null, convert));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as object)) {
      const converted = walk(v, null, convert);
      if (converted !== undefined) out[k] = converted;
    }
    return out;
  }
  const next = (nodes as { [key: string]: KeyNodes })['*'];
  if (keys.length === 1 && next !== undefined) {
    if (Array.isArray(value)) return value.map((v) => walk(v, next, convert));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as object)) out[k] = walk(v, next, convert);
    return out;
  }
  const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as object) };
  for (const key of keys) {
    const converted = walk(
      (value as Record<string, unknown>)[key],
      (nodes as { [key: string]: KeyNodes })[key] ?? null,
      convert,
    );
    if (converted !== undefined) (out as Record<string, unknown>)[key] = converted;
  }
  return out;
}

/**
 * Binary attributes come as base64 in DynamoDB's JSON. The SDK's decoder first tests each string against a regular
 * expression (1-4% of a report's time, whose facts are blobs); DynamoDB sends well-formed base64, which Buffer
 * decodes as the SDK's does after its test. The SDK's path uses it too (document-client.ts).
 */
export function decodeBinary(text: string): Uint8Array {
  const bytes = Buffer.from(text, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * util-dynamodb's convertToNative (numbers unwrapped, as lib-dynamodb's default) with binary decoded from base64, or
 * taken from `binaries` where parseLifted left its index.
 */
function toNative(value: unknown, binaries: readonly Uint8Array[]): unknown {
  const av = value as Record<string, unknown>;
  for (const key in av) {
    const v = av[key];
    if (v === undefined) continue;
    switch (key) {
      case 'S':
        return v;
      case 'N':
        return toNumber(v as string);
      case 'B':
        return typeof v === 'number' ? binaries[v] : decodeBinary(v as string);
      case 'M': {
        const out: Record<string, unknown> = {};
        for (const k in v as Record<string, unknown>) out[k] = toNative((v as Record<string, unknown>)[k], binaries);
        return out;
      }
      case 'L':
        return (v as unknown[]).map((x) => toNative(x, binaries));
      case 'NULL':
        return null;
      case 'BOOL':
        return Boolean(v);
      case 'SS':
        return new Set(v as string[]);
      case 'NS':
        return new Set((v as string[]).map(toNumber));
      case 'BS':
        return new Set((v as string[]).map(decodeBinary));
      default:
        throw new Error(`Unsupported type passed: ${key}`);
    }
  }
  throw new Error(`No value defined: ${JSON.stringify(value)}`);
}

function toNumber(text: string): number | bigint {
  const n = Number(text);
  if ((n > Number.MAX_SAFE_INTEGER || n < Number.MIN_SAFE_INTEGER) && Number.isFinite(n)) return BigInt(text);
  return n;
}

/** An item of an error (low-level attribute values, as the SDK leaves them) with its binary values decoded. */
function decodeItem(item: unknown): unknown {
  const decode = (av: Record<string, unknown>): Record<string, unknown> => {
    if (typeof av.B === 'string') return { B: decodeBinary(av.B) };
    if (Array.isArray(av.BS)) return { BS: (av.BS as string[]).map(decodeBinary) };
    if (av.M) return { M: mapValues(av.M as Record<string, Record<string, unknown>>, decode) };
    if (Array.isArray(av.L)) return { L: (av.L as Record<string, unknown>[]).map(decode) };
    return av;
  };
  return mapValues(item as Record<string, Record<string, unknown>>, decode);
}

const mapValues = <T, U>(o: Record<string, T>, f: (v: T) => U): Record<string, U> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
