/**
 * Stand-ins, on loopback, for the three AWS calls families the cloud sync uses and that cannot run locally, speaking
 * their wire protocols so the real AWS SDK clients talk to them (pointed there by AWS_ENDPOINT_URL_SECRETS_MANAGER,
 * AWS_ENDPOINT_URL_SQS and AWS_ENDPOINT_URL_S3):
 * - Secrets Manager (JSON 1.1): CreateSecret, PutSecretValue, GetSecretValue, DeleteSecret (with or without a recovery
 *   window), RestoreSecret; errors as `__type` (ResourceExistsException, ResourceNotFoundException,
 *   InvalidRequestException for a secret pending deletion);
 * - SQS (JSON 1.0): SendMessageBatch (with the MD5 of each body, which the SDK checks);
 * - S3 (REST, path style): PutObject (plain or aws-chunked bodies; x-amz-meta-* metadata), GetObject, HeadObject.
 * Signatures are not checked (DynamoDB Local does not either); an unsigned request is refused.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredSecret {
  readonly name: string;
  readonly arn: string;
  value: string;
  versionId: string;
  deletedAt?: Date;
}

export interface StoredObject {
  readonly body: Buffer;
  readonly metadata: Readonly<Record<string, string>>;
  readonly contentType?: string;
  readonly etag: string;
}

export class AwsStandin {
  readonly secrets = new Map<string, StoredSecret>();
  readonly messages: { queueUrl: string; body: string; id: string }[] = [];
  readonly objects = new Map<string, StoredObject>();
  /** Every S3 request, as `METHOD bucket/key`. */
  readonly s3Requests: string[] = [];

  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(): Promise<AwsStandin> {
    let standin: AwsStandin | undefined;
    const server = createServer((req, res) => {
      standin?.handle(req, res).catch((err: unknown) => {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ __type: 'InternalFailure', message: String(err) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standin = new AwsStandin(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return standin;
  }

  /** The endpoint variables that point the SDK's clients here. */
  get env(): Record<string, string> {
    return {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: this.endpoint,
      AWS_ENDPOINT_URL_SQS: this.endpoint,
      AWS_ENDPOINT_URL_S3: this.endpoint,
    };
  }

  queueUrl(name: string): string {
    return `${this.endpoint}/000000000000/${name}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256')) {
      res.writeHead(403, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify({ __type: 'MissingAuthenticationTokenException', message: 'unsigned' }));
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target.startsWith('secretsmanager.')) {
      this.secretsManager(target.slice(15), JSON.parse(raw.toString()), res);
      return;
    }
    if (target.startsWith('AmazonSQS.')) return this.sqs(target.slice(10), JSON.parse(raw.toString()), res);
    return this.s3(req, raw, res);
  }

  /** Answers one call; returns whether it succeeded. */
  private secretsManager(action: string, input: Record<string, any>, res: ServerResponse): boolean {
    const ok = (value: unknown) => {
      res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(value));
      return true;
    };
    const fail = (type: string, message: string) => {
      res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-ErrorType': type });
      res.end(JSON.stringify({ __type: type, message }));
      return false;
    };
    const id = String(input.SecretId ?? input.Name ?? '');
    const secret = [...this.secrets.values()].find((s) => s.name === id || s.arn === id);
    const live = secret && !secret.deletedAt ? secret : undefined;
    switch (action) {
      case 'CreateSecret': {
        if (secret?.deletedAt) {
          return fail(
            'InvalidRequestException',
            "You can't create this secret because a secret with this name is already scheduled for deletion.",
          );
        }
        if (secret)
          return fail('ResourceExistsException', `The operation failed because the secret ${id} already exists.`);
        const created: StoredSecret = {
          name: id,
          arn: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${id}-${randomUUID().slice(0, 6)}`,
          value: String(input.SecretString),
          versionId: randomUUID(),
        };
        this.secrets.set(id, created);
        return ok({ ARN: created.arn, Name: created.name, VersionId: created.versionId });
      }
      case 'PutSecretValue': {
        if (!live) return fail('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        live.value = String(input.SecretString);
        live.versionId = randomUUID();
        return ok({ ARN: live.arn, Name: live.name, VersionId: live.versionId, VersionStages: ['AWSCURRENT'] });
      }
      case 'GetSecretValue': {
        if (!live) return fail('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        return ok({
          ARN: live.arn,
          Name: live.name,
          SecretString: live.value,
          VersionId: live.versionId,
          VersionStages: ['AWSCURRENT'],
          CreatedDate: Date.now() / 1000,
        });
      }
      case 'DeleteSecret': {
        if (!secret) return fail('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        if (input.ForceDeleteWithoutRecovery) this.secrets.delete(secret.name);
        else secret.deletedAt = new Date();
        return ok({ ARN: secret.arn, Name: secret.name, DeletionDate: Date.now() / 1000 });
      }
      case 'RestoreSecret': {
        if (!secret) return fail('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        delete secret.deletedAt;
        return ok({ ARN: secret.arn, Name: secret.name });
      }
      default:
        return fail('InvalidAction', `${action} is not supported by the stand-in`);
    }
  }

  private sqs(action: string, input: Record<string, any>, res: ServerResponse): void {
    if (action !== 'SendMessageBatch') {
      res.writeHead(400, {
        'Content-Type': 'application/x-amz-json-1.0',
        'x-amzn-query-error': 'InvalidAction;Sender',
      });
      return void res.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidAction', message: action }));
    }
    const successful = (input.Entries as { Id: string; MessageBody: string }[]).map((e) => {
      const id = randomUUID();
      this.messages.push({ queueUrl: String(input.QueueUrl), body: e.MessageBody, id });
      return { Id: e.Id, MessageId: id, MD5OfMessageBody: createHash('md5').update(e.MessageBody).digest('hex') };
    });
    res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify({ Successful: successful, Failed: [] }));
  }

  private s3(req: IncomingMessage, raw: Buffer, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.endpoint);
    const key = decodeURIComponent(url.pathname.slice(1)); // bucket/key (path style)
    this.s3Requests.push(`${req.method} ${key}`);
    if (req.method === 'PUT') {
      const encoding = String(req.headers['content-encoding'] ?? '');
      const body = encoding.includes('aws-chunked') ? decodeChunked(raw) : raw;
      const metadata = Object.fromEntries(
        Object.entries(req.headers)
          .filter(([h]) => h.startsWith('x-amz-meta-'))
          .map(([h, v]) => [h.slice(11), String(v)]),
      );
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      const type = req.headers['content-type'];
      this.objects.set(key, { body, metadata, etag, ...(type ? { contentType: String(type) } : {}) });
      res.writeHead(200, { ETag: etag });
      return void res.end();
    }
    const object = this.objects.get(key);
    if (!object) {
      res.writeHead(404, { 'Content-Type': 'application/xml' });
      return void res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
      );
    }
    res.writeHead(200, {
      ETag: object.etag,
      'Content-Length': String(object.body.length),
      'Last-Modified': new Date().toUTCString(),
      ...(object.contentType ? { 'Content-Type': object.contentType } : {}),
      ...Object.fromEntries(Object.entries(object.metadata).map(([k, v]) => [`x-amz-meta-${k}`, v])),
    });
    res.end(req.method === 'HEAD' ? undefined : object.body);
  }
}

/** An aws-chunked body: `<hex size>[;ext]\r\n<data>\r\n` … `0\r\n<trailers>\r\n\r\n`. */
function decodeChunked(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.subarray(at, eol).toString().split(';')[0] as string, 16);
    if (!size) return Buffer.concat(parts);
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
