/**
 * The wire client (core/db/wire-client.ts) against the SDK it stands in for. A loopback HTTP server plays DynamoDB:
 * it records each request and answers from a script, so the same answer can be put to the wire path and to the SDK's
 * own (a plain DynamoDBDocumentClient) and what each makes of it compared. Everything DynamoDB Local can do is
 * tested against it elsewhere (every repository's tests run on this client); this server stands in only for what
 * Local cannot show: the signature, the bytes sent, throttling and server errors.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { documentClientOf } from '../../functions/core/db/document-client';
import { LIFT_FROM } from '../../functions/core/db/lifted-json';

interface Recorded {
  headers: IncomingHttpHeaders;
  body: string;
}
interface Scripted {
  status: number;
  body: unknown;
}

const CREDENTIALS = { accessKeyId: 'AKIDWIRE', secretAccessKey: 'wire-secret', sessionToken: 'wire-session' };
const REGION = 'eu-west-1';

let server: Server;
let endpoint: string;
const requests: Recorded[] = [];
let script: Scripted[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const next = script.length > 1 ? (script.shift() as Scripted) : (script[0] ?? { status: 200, body: {} });
      if (next.status === 0) return; // never answers
      res.writeHead(next.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ1' });
      res.end(typeof next.body === 'string' ? next.body : JSON.stringify(next.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  requests.length = 0;
  script = [];
});

const sdkClient = () => new DynamoDBClient({ endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 3 });
/** The client the service uses (the wire path), and the SDK's own document client over the same configuration. */
let wire: DynamoDBDocumentClient;
let sdk: DynamoDBDocumentClient;

beforeAll(() => {
  wire = documentClientOf(sdkClient());
  sdk = DynamoDBDocumentClient.from(sdkClient(), { marshallOptions: { removeUndefinedValues: true } });
});

afterAll(() => {
  wire.destroy();
  sdk.destroy();
});

/** Any document command (the SDK's send is overloaded per command type). */
type Command = any;

/** Sends a command both ways against one scripted answer: what each sent and what each made of the answer. */
async function both(make: () => Command, answer: Scripted) {
  const outcome = async (client: DynamoDBDocumentClient) => {
    script = [answer];
    requests.length = 0;
    try {
      const out = (await (client.send as (c: Command) => Promise<Record<string, unknown>>)(make())) as Record<
        string,
        unknown
      >;
      const { $metadata: _, ...rest } = out;
      return { sent: requests[0] as Recorded, result: rest, error: undefined };
    } catch (error) {
      return { sent: requests[0] as Recorded, result: undefined, error: error as Record<string, unknown> };
    }
  };
  return { wire: await outcome(wire), sdk: await outcome(sdk) };
}

const bytes = (...values: number[]) => new Uint8Array(values);
const b64 = (...values: number[]) => Buffer.from(values).toString('base64');

describe('what goes out', () => {
  const commands: [string, () => Command][] = [
    [
      'PutItem with binary, numbers, sets, nested maps and an undefined member',
      () =>
        new PutCommand({
          TableName: 't',
          Item: {
            pk: 'a',
            sk: 'b',
            blob: bytes(0, 1, 254, 255),
            n: 12.5,
            tags: new Set(['x', 'y']),
            nums: new Set([1, 2]),
            nested: { deep: [1, 'two', { three: bytes(3) }], gone: undefined },
            nothing: null,
            flag: true,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
    ],
    [
      'UpdateItem with expression values',
      () =>
        new UpdateCommand({
          TableName: 't',
          Key: { pk: 'a', sk: 'b' },
          UpdateExpression: 'SET #v = :v ADD #c :one',
          ExpressionAttributeNames: { '#v': 'v', '#c': 'c' },
          ExpressionAttributeValues: { ':v': bytes(9, 9), ':one': 1 },
          ReturnValues: 'ALL_NEW',
        }),
    ],
    [
      'Query with a start key and a projection',
      () =>
        new QueryCommand({
          TableName: 't',
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
          ExpressionAttributeValues: { ':pk': 'p', ':a': 'M#2025-01', ':b': 'M#2025-12' },
          ExclusiveStartKey: { pk: 'p', sk: 'M#2025-03' },
          ConsistentRead: true,
        }),
    ],
    [
      'BatchWriteItem of puts and deletes',
      () =>
        new BatchWriteCommand({
          RequestItems: {
            t: [
              { PutRequest: { Item: { pk: 'a', sk: '1', v: bytes(1, 2, 3) } } },
              { DeleteRequest: { Key: { pk: 'a', sk: '2' } } },
            ],
          },
        }),
    ],
    [
      'TransactWriteItems of every kind',
      () =>
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: 't', Item: { pk: 'a', sk: '1', v: 1 } } },
            {
              Update: {
                TableName: 't',
                Key: { pk: 'a', sk: '2' },
                UpdateExpression: 'SET v = :v',
                ExpressionAttributeValues: { ':v': new Set([bytes(1), bytes(2)]) },
              },
            },
            { Delete: { TableName: 't', Key: { pk: 'a', sk: '3' } } },
            {
              ConditionCheck: {
                TableName: 't',
                Key: { pk: 'a', sk: '4' },
                ConditionExpression: 'v = :v',
                ExpressionAttributeValues: { ':v': 'x' },
              },
            },
          ],
        }),
    ],
  ];

  it.each(commands)('%s: the same JSON body as the SDK sends', async (_, make) => {
    const { wire: w, sdk: s } = await both(make, { status: 200, body: {} });
    expect(w.error).toBeUndefined();
    // A transaction's idempotency token is random (a UUID) on both sides.
    const token = (b: string) => ({
      ...JSON.parse(b),
      ClientRequestToken: /^[0-9a-f-]{36}$/.test(JSON.parse(b).ClientRequestToken),
    });
    const sent = (b: string) => (JSON.parse(b).TransactItems ? token(b) : JSON.parse(b));
    expect(sent(w.sent.body)).toEqual(sent(s.sent.body));
    expect(w.sent.headers['x-amz-target']).toBe(s.sent.headers['x-amz-target']);
    expect(w.sent.headers['content-type']).toBe('application/x-amz-json-1.0');
  });

  it('signs with SigV4 as the specification computes it, session token included', async () => {
    script = [{ status: 200, body: {} }];
    await wire.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));
    const { headers, body } = requests[0] as Recorded;
    expect(headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
    const auth = String(headers.authorization);
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/dynamodb\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
        auth,
      );
    expect(match, auth).not.toBeNull();
    const [, keyId, day, region, signedHeaders, signature] = match as RegExpExecArray;
    expect([keyId, region]).toEqual([CREDENTIALS.accessKeyId, REGION]);
    const names = (signedHeaders as string).split(';');
    expect(names).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-target', 'x-amz-security-token']));
    // An independent SigV4 (AWS's "Create a signed AWS API request" steps, with node:crypto).
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const hmac = (k: Buffer | string, s: string) => createHmac('sha256', k).update(s).digest();
    const canonical = [
      'POST',
      '/',
      '',
      ...names.map((n) => `${n}:${String(headers[n]).trim()}`),
      '',
      signedHeaders,
      sha(body),
    ].join('\n');
    const scope = `${day}/${REGION}/dynamodb/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', String(headers['x-amz-date']), scope, sha(canonical)].join('\n');
    let key = hmac(`AWS4${CREDENTIALS.secretAccessKey}`, day as string);
    for (const part of [REGION, 'dynamodb', 'aws4_request']) key = hmac(key, part);
    expect(createHmac('sha256', key).update(toSign).digest('hex')).toBe(signature);
  });

  it('goes where the SDK would: an endpoint configured for the service (AWS_ENDPOINT_URL_DYNAMODB)', async () => {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    const configured = documentClientOf(new DynamoDBClient({ region: REGION, credentials: CREDENTIALS }));
    try {
      script = [{ status: 200, body: { Item: { pk: { S: 'a' } } } }];
      const out = await configured.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));
      expect(out.Item).toEqual({ pk: 'a' });
      expect(requests).toHaveLength(1);
    } finally {
      delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      configured.destroy();
    }
  });

  it('leaves other commands to the SDK', async () => {
    script = [{ status: 200, body: { Table: { TableName: 't' } } }];
    await wire.send(new DescribeTableCommand({ TableName: 't' }));
    expect((requests[0] as Recorded).headers['x-amz-target']).toBe('DynamoDB_20120810.DescribeTable');
    // The SDK's own request carries its user agent; the wire client's does not.
    expect((requests[0] as Recorded).headers['x-amz-user-agent']).toBeDefined();
  });
});

describe('what comes back', () => {
  const item = {
    pk: { S: 'a' },
    sk: { S: 'b' },
    blob: { B: b64(0, 1, 255) },
    n: { N: '42.5' },
    big: { N: '123456789012345678901' },
    ss: { SS: ['x', 'y'] },
    ns: { NS: ['1', '2'] },
    bs: { BS: [b64(1), b64(2, 3)] },
    m: { M: { inner: { L: [{ N: '1' }, { S: 's' }, { B: b64(7) }, { NULL: true }, { BOOL: false }] } } },
  };

  const answers: [string, () => Command, Record<string, unknown>][] = [
    ['GetItem', () => new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }), { Item: item }],
    [
      'Query, with the key it ended on',
      () =>
        new QueryCommand({
          TableName: 't',
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': 'a' },
        }),
      {
        Items: [item, { pk: { S: 'a' }, sk: { S: 'c' } }],
        Count: 2,
        ScannedCount: 2,
        LastEvaluatedKey: { pk: { S: 'a' }, sk: { S: 'c' } },
      },
    ],
    [
      'BatchGetItem, with keys left unprocessed',
      () =>
        new BatchGetCommand({
          RequestItems: {
            t: {
              Keys: [
                { pk: 'a', sk: 'b' },
                { pk: 'a', sk: 'z' },
              ],
            },
          },
        }),
      {
        Responses: { t: [item] },
        UnprocessedKeys: { t: { Keys: [{ pk: { S: 'a' }, sk: { S: 'z' } }], ConsistentRead: true } },
      },
    ],
    [
      'BatchWriteItem, with items left unprocessed',
      () => new BatchWriteCommand({ RequestItems: { t: [{ PutRequest: { Item: { pk: 'a', sk: 'b' } } }] } }),
      { UnprocessedItems: { t: [{ PutRequest: { Item: item } }] } },
    ],
    [
      'UpdateItem returning its attributes',
      () =>
        new UpdateCommand({
          TableName: 't',
          Key: { pk: 'a', sk: 'b' },
          UpdateExpression: 'SET v = :v',
          ExpressionAttributeValues: { ':v': 1 },
          ReturnValues: 'ALL_NEW',
        }),
      { Attributes: item },
    ],
  ];

  it.each(answers)('%s: what the SDK makes of the same answer', async (_, make, answer) => {
    const { wire: w, sdk: s } = await both(make, { status: 200, body: answer });
    expect(w.error).toBeUndefined();
    expect(w.result).toEqual(s.result);
    expect(w.result).not.toEqual({});
  });

  // Past LIFT_FROM the wire client lifts binary values out of the body's bytes (lifted-json.ts): the same answers made
  // large, with what the lifting must leave alone: a binary value written with JSON's `\/` escape, text that looks
  // like a binary value inside a string, a map member named B, multi-byte UTF-8 beside a lifted value.
  const slashy = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256)).toString('base64');
  const large = {
    ...item,
    huge: { B: Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7919) % 256)).toString('base64') },
    slashy: { B: slashy },
    text: { S: 'naïve {"B":"QUJD"} ✓ 日本' },
    mb: { M: { B: { S: 'not binary' }, C: { B: b64(9, 8) } } },
    after: { S: 'ü' },
  };
  const largeBody = (answer: Record<string, unknown>) =>
    JSON.stringify(answer, (_k, v) => (v === item ? large : v)).replace(
      `"${slashy}"`,
      `"${slashy.replaceAll('/', '\\/')}"`,
    );

  it.each(answers)('%s, large: what the SDK makes of the same answer', async (_, make, answer) => {
    const body = largeBody(answer);
    expect(body.length).toBeGreaterThan(LIFT_FROM);
    expect(body).toContain('\\/');
    const { wire: w, sdk: s } = await both(make, { status: 200, body });
    expect(w.error).toBeUndefined();
    expect(w.result).toEqual(s.result);
    expect(JSON.stringify(w.result, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).toContain('not binary');
  });

  it.each([
    [
      'a transaction cancelled, with the items that failed their conditions',
      {
        __type: 'com.amazon.coral.service#TransactionCanceledException',
        Message:
          'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
        CancellationReasons: [
          { Code: 'None' },
          { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: item },
        ],
      },
    ],
    [
      'a failed condition returning the old item',
      {
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'The conditional request failed',
        Item: item,
      },
    ],
    [
      'a validation error',
      { __type: 'com.amazon.coral.validate#ValidationException', message: 'One or more parameter values were invalid' },
    ],
  ])('%s: the error the SDK throws', async (_, body) => {
    const make = () =>
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 't', Item: { pk: 'a', sk: 'b' } } }] });
    const { wire: w, sdk: s } = await both(make, { status: 400, body });
    expect(w.error).toBeDefined();
    const view = (e: Record<string, unknown>) => ({
      name: e.name,
      message: e.message,
      fault: e.$fault,
      status: (e.$metadata as { httpStatusCode?: number }).httpStatusCode,
      attempts: (e.$metadata as { attempts?: number }).attempts,
      reasons: e.CancellationReasons,
      item: e.Item,
    });
    expect(view(w.error as Record<string, unknown>)).toEqual(view(s.error as Record<string, unknown>));
    expect(w.error).toBeInstanceOf(Error);
  });
});

describe('retries, as the SDK retries', () => {
  const get = () => new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } });

  it('a server error twice, then an answer: three attempts', async () => {
    script = [
      { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'boom' } },
      { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'boom' } },
      { status: 200, body: { Item: { pk: { S: 'a' } } } },
    ];
    const out = await wire.send(get());
    expect(out.Item).toEqual({ pk: 'a' });
    expect(out.$metadata.attempts).toBe(3);
    expect(requests).toHaveLength(3);
  });

  it('throttled on every attempt: the throttle after three', async () => {
    script = [
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
          message: 'slow down',
        },
      },
    ];
    const error = await wire.send(get()).catch((e: unknown) => e as Record<string, unknown>);
    expect(error).toMatchObject({ name: 'ProvisionedThroughputExceededException', $metadata: { attempts: 3 } });
    expect(requests).toHaveLength(3);
  });

  it('a validation error is not retried', async () => {
    script = [{ status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message: 'bad' } }];
    await expect(wire.send(get())).rejects.toMatchObject({ name: 'ValidationException', message: 'bad' });
    expect(requests).toHaveLength(1);
  });

  it('a socket that stays idle ends the attempt, and the attempts end: TimeoutError after three', async () => {
    const client = sdkClient();
    // The SDK's service default is 300 s; the test shortens it where the client's configuration holds it.
    (client.config as { defaultSocketTimeout?: number }).defaultSocketTimeout = 150;
    const impatient = documentClientOf(client);
    try {
      script = [{ status: 0, body: {} }];
      const error = await impatient.send(get()).catch((e: unknown) => e as Record<string, unknown>);
      expect(error).toMatchObject({ name: 'TimeoutError', $metadata: { attempts: 3 } });
      expect(requests).toHaveLength(3);
    } finally {
      impatient.destroy();
    }
  });

  it('an answer that is not JSON is an error of its status, not a crash', async () => {
    script = [{ status: 200, body: '<html>proxy</html>' }];
    await expect(wire.send(get())).rejects.toMatchObject({ $metadata: { httpStatusCode: 200 } });
  });
});
