import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';

describe('local API smoke', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startLocalApi();
  });
  afterAll(() => api.close());

  it('serves properties/1000 to alice', async () => {
    const res = await api.call('/v1alpha/properties/1000', { token: await api.token('alice', ['analytics.readonly']) });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('properties/1000');
  });
});
