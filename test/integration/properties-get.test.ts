/**
 * properties.get end to end: real HTTP against the local API and DynamoDB Local with the demo world, and the
 * Lambda handler called directly with the committed sample events.
 */
import { request } from 'node:http';
import path from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHandler } from '../../functions/analytics-admin/properties-get';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { dynamoDirectoryRepository } from '../../functions/core/directory/directory-repository';
import { dynamoPropertyRepository } from '../../functions/core/properties/property-repository';
import { DEFAULT_SCOPE_BASE } from '../../functions/core/scopes';
import { loadEvent, type TemplateContext } from '../../infra/local/event-template';
import { createIssuerKey, DEFAULT_AUDIENCE } from '../../infra/local/local-issuer';
import { type LocalApi, startLocalApi } from '../support/local-api';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

const PROPERTY_1000 = {
  name: 'properties/1000',
  propertyType: 'PROPERTY_TYPE_ORDINARY',
  createTime: '2024-03-01T10:00:00.000Z',
  updateTime: '2026-06-15T08:30:00.000Z',
  parent: 'accounts/100',
  displayName: 'Alice Cooks - Web',
  industryCategory: 'FOOD_AND_DRINK',
  timeZone: 'America/Los_Angeles',
  currencyCode: 'USD',
  serviceLevel: 'GOOGLE_ANALYTICS_STANDARD',
  account: 'accounts/100',
};

const PROPERTY_1001 = {
  name: 'properties/1001',
  propertyType: 'PROPERTY_TYPE_SUBPROPERTY',
  createTime: '2025-01-10T12:00:00.000Z',
  updateTime: '2026-10-01T09:00:00.000Z',
  parent: 'properties/1000',
  displayName: 'Alice Cooks - EU (subproperty, in trash)',
  industryCategory: 'FOOD_AND_DRINK',
  timeZone: 'Europe/Berlin',
  currencyCode: 'EUR',
  serviceLevel: 'GOOGLE_ANALYTICS_STANDARD',
  deleteTime: '2026-11-01T09:00:00.000Z',
  expireTime: '2026-12-06T09:00:00.000Z',
  account: 'accounts/100',
};

const PROPERTY_2000 = {
  name: 'properties/2000',
  propertyType: 'PROPERTY_TYPE_ORDINARY',
  createTime: '2023-05-20T00:00:00.000Z',
  updateTime: '2026-02-02T02:02:02.000Z',
  parent: 'accounts/200',
  displayName: 'Bob Media - Apps',
  industryCategory: 'ARTS_AND_ENTERTAINMENT',
  timeZone: 'Asia/Tokyo',
  currencyCode: 'JPY',
  serviceLevel: 'GOOGLE_ANALYTICS_360',
  account: 'accounts/200',
};

const FORBIDDEN = {
  error: {
    code: 403,
    message: 'The caller does not have permission',
    errors: [{ message: 'The caller does not have permission', domain: 'global', reason: 'forbidden' }],
    status: 'PERMISSION_DENIED',
  },
};

const BAD_NAME_MESSAGE = "The value for the 'name' field was invalid but must be in format 'properties/123'.";
const BAD_NAME = {
  error: {
    code: 400,
    message: BAD_NAME_MESSAGE,
    errors: [
      {
        message: BAD_NAME_MESSAGE,
        domain: 'global',
        reason: 'badRequest',
        location: 'name',
        locationType: 'parameter',
      },
    ],
    status: 'INVALID_ARGUMENT',
  },
};

let api: LocalApi;
const tokens: Record<string, string> = {};

/** A GET that carries a body (fetch refuses to send one). */
function getWithBody(url: string, token: string, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  api = await startLocalApi();
  tokens.aliceRead = await api.token('alice', ['analytics.readonly']);
  tokens.aliceEdit = await api.token('alice', ['analytics.edit']);
  tokens.bob = await api.token('bob', ['analytics.readonly']);
  tokens.mallory = await api.token('mallory', ['analytics.readonly', 'analytics.edit']);
});
afterAll(() => api.close());

const get = (id: string, who: string) => api.call(`/v1alpha/properties/${id}`, { token: tokens[who] });

describe('properties.get over HTTP', () => {
  it.each(['aliceRead', 'aliceEdit'])('%s: 200 and the exact Property of properties/1000', async (who) => {
    const res = await get('1000', who);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(res.body).toStrictEqual(PROPERTY_1000);
    expect(res.body).not.toHaveProperty('deleteTime');
    expect(res.body).not.toHaveProperty('expireTime');
  });

  it('alice reads the trashed subproperty properties/1001 with deleteTime, expireTime and its property parent', async () => {
    const res = await get('1001', 'aliceRead');

    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(PROPERTY_1001);
  });

  it('the answer has no internal attributes (keys, entity type)', async () => {
    const res = await get('1000', 'aliceRead');

    for (const k of ['pk', 'sk', 'entity', 'gsi1pk', 'gsi1sk']) expect(res.body).not.toHaveProperty(k);
  });

  it('bob reads properties/2000', async () => {
    const res = await get('2000', 'bob');

    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(PROPERTY_2000);
  });

  it('alice cannot read bob’s properties/2000', async () => {
    const res = await get('2000', 'aliceRead');

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(FORBIDDEN);
  });

  it('bob on properties/1000 → 403 PERMISSION_DENIED forbidden', async () => {
    const res = await get('1000', 'bob');

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(FORBIDDEN);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('bob on properties/1001 (subproperty of a property he cannot read) → 403', async () => {
    const res = await get('1001', 'bob');

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(FORBIDDEN);
  });

  it('bob on a non-existent property gets a body deep-equal to his 403 for an existing one', async () => {
    const existing = await get('1000', 'bob');
    const missing = await get('999999', 'bob');

    expect(missing.status).toBe(existing.status);
    expect(missing.body).toStrictEqual(existing.body);
    expect(missing.headers.get('content-type')).toBe(existing.headers.get('content-type'));
  });

  it.each(['1000', '1001', '2000', '999999', '0'])('mallory on properties/%s → 403', async (id) => {
    const res = await get(id, 'mallory');

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(FORBIDDEN);
  });

  it.each([
    ['letters', 'abc'],
    ['an encoded space', '%20'],
    ['a decimal', '1.5'],
    ['digits then a letter', '12a'],
    ['a 21-digit id', '1'.repeat(21)],
    ['a negative id', '-1'],
    ['an encoded slash', '1000%2F1'],
  ])('malformed name (%s) → 400 INVALID_ARGUMENT', async (_name, id) => {
    const res = await get(id, 'aliceRead');

    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual(BAD_NAME);
  });

  it('a malformed name is a 400 even for a caller without any grant (validation first)', async () => {
    const res = await get('abc', 'mallory');

    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual(BAD_NAME);
  });

  it('a GET with a request body → 400 INVALID_ARGUMENT, no property data', async () => {
    const res = await getWithBody(`${api.baseUrl}/v1alpha/properties/1000`, tokens.aliceRead as string, '{"x":1}');

    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      error: {
        code: 400,
        message: 'The request body must be empty.',
        errors: [
          { message: 'The request body must be empty.', domain: 'global', reason: 'badRequest', locationType: 'body' },
        ],
        status: 'INVALID_ARGUMENT',
      },
    });
  });
});

describe('properties.get handler called directly with the sample events', () => {
  let ctx: TemplateContext;
  let handler: ReturnType<typeof makeHandler>;
  const db = createDocumentClient();
  beforeAll(async () => {
    ctx = { issuerKey: await createIssuerKey(), audience: DEFAULT_AUDIENCE, scopeBase: DEFAULT_SCOPE_BASE };
    const table = { db, tableName: process.env.TABLE_NAME as string };
    handler = makeHandler({ properties: dynamoPropertyRepository(table), directory: dynamoDirectoryRepository(table) });
  });
  afterAll(() => db.destroy());

  const sample = (name: string) =>
    loadEvent<APIGatewayProxyEvent>(path.join(ROOT, 'events', 'analytics-admin', name), ctx);

  it('properties-get.json → 200 with properties/1000', async () => {
    const res = await handler(await sample('properties-get.json'));

    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toStrictEqual(PROPERTY_1000);
    expect(res.headers?.['Content-Type']).toBe('application/json; charset=UTF-8');
  });

  it('properties-get.no-access.json → 403 forbidden', async () => {
    const res = await handler(await sample('properties-get.no-access.json'));

    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body)).toStrictEqual(FORBIDDEN);
  });

  it('properties-get.malformed-name.json → 400 badRequest on name', async () => {
    const res = await handler(await sample('properties-get.malformed-name.json'));

    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toStrictEqual(BAD_NAME);
  });

  it('properties-get.json with its authorizer context removed → 401', async () => {
    const event = await sample('properties-get.json');
    const res = await handler({
      ...event,
      requestContext: { ...event.requestContext, authorizer: null } as APIGatewayProxyEvent['requestContext'],
    });

    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).error.status).toBe('UNAUTHENTICATED');
  });
});
