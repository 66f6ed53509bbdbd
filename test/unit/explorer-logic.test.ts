/** The Query Explorer's logic outside the page: catalog-driven choices, date presets, snippets, PKCE. */
import { describe, expect, it } from 'vitest';
import { authorizeRedirect, codeChallenge, randomToken, tokenRequestBody } from '../../functions/explorer/pkce';
import {
  dimensionChoices,
  filterChoices,
  matchingReports,
  metricChoices,
  presetRange,
} from '../../functions/explorer/query-options';
import { curlCommand, pythonSnippet, reportsUrl } from '../../functions/explorer/snippets';

const enabled = (choices: { name: string; enabled: boolean }[]) => choices.filter((c) => c.enabled).map((c) => c.name);

describe('catalog-driven choices', () => {
  it('offers with day only the dimensions some report takes with day', () => {
    const dims = enabled(dimensionChoices('channel', ['day']));

    expect(dims).toContain('day');
    expect(dims).toContain('creatorContentType');
    expect(dims).not.toContain('month'); // exactly one time dimension
    expect(dims).not.toContain('video');
    expect(dimensionChoices('channel', []).every((c) => c.enabled)).toBe(true);
  });

  it('offers the metrics of the matching reports, and only those that fit together', () => {
    const withDay = enabled(metricChoices('channel', ['day'], []));
    expect(withDay).toContain('views');
    expect(withDay).toContain('estimatedRevenue');
    expect(withDay).not.toContain('viewerPercentage'); // demographics only

    const withPlaylistMetric = enabled(metricChoices('channel', ['day'], ['playlistStarts']));
    expect(withPlaylistMetric).toContain('playlistViews');
    expect(withPlaylistMetric).not.toContain('likes');
  });

  it('names the report a complete choice is, and the filters it takes', () => {
    expect(matchingReports('channel', ['day'], ['views'])[0]?.id).toBe('3');
    expect(matchingReports('contentOwner', ['day'], ['views'])[0]?.id).toBe('CO-3');
    expect(filterChoices('channel', ['day'])).toEqual(expect.arrayContaining(['video', 'group', 'country']));
    expect(filterChoices('contentOwner', ['day'])).toContain('claimedStatus');
    expect(matchingReports('channel', ['ageGroup'], ['views'])).toEqual([]);
  });
});

describe('presetRange', () => {
  const today = new Date('2026-11-24T15:00:00Z');

  it.each([
    ['last7', '2026-11-17', '2026-11-23'],
    ['last28', '2026-10-27', '2026-11-23'],
    ['last90', '2026-08-26', '2026-11-23'],
    ['thisYear', '2026-01-01', '2026-11-23'],
  ] as const)('%s', (preset, startDate, endDate) => {
    expect(presetRange(preset, today)).toStrictEqual({ startDate, endDate });
  });

  it('this year on January 1st is that day alone', () => {
    expect(presetRange('thisYear', new Date('2027-01-01T08:00:00Z'))).toStrictEqual({
      startDate: '2027-01-01',
      endDate: '2027-01-01',
    });
  });
});

describe('snippets', () => {
  const root = 'https://api.example.com/v/';
  const params = { ids: 'channel==MINE', startDate: '2026-10-01', endDate: "2026-10-31'", maxResults: '10' };

  it('curl quotes the URL for the shell', () => {
    expect(reportsUrl(root, params)).toBe(
      'https://api.example.com/v/v2/reports?ids=channel%3D%3DMINE&startDate=2026-10-01&endDate=2026-10-31%27&maxResults=10',
    );
    expect(curlCommand(root, params)).toBe(
      `curl -H "Authorization: Bearer $TOKEN" \\\n  '${reportsUrl(root, params)}'`,
    );
  });

  it('Python builds the client from this API’s discovery document, integers as integers', () => {
    const py = pythonSnippet(root, params);

    expect(py).toContain("discoveryServiceUrl='https://api.example.com/v/$discovery/rest?version={apiVersion}'");
    expect(py).toContain("    endDate='2026-10-31\\'',");
    expect(py).toContain('    maxResults=10,');
  });
});

describe('PKCE', () => {
  it('computes the RFC 7636 appendix B challenge', async () => {
    expect(await codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('makes fresh 43-character verifiers', () => {
    const a = randomToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).not.toBe(a);
  });

  it('sends the code flow with S256 and redeems the code with the verifier, no secret', () => {
    const oauth = { authorizeUrl: 'https://auth.example.com/oauth2/authorize', tokenUrl: 'x', clientId: 'c1' };
    const url = new URL(authorizeRedirect(oauth, 'https://api.example.com/v/', ['s1', 's2'], 'st', 'ch'));

    expect(Object.fromEntries(url.searchParams)).toStrictEqual({
      response_type: 'code',
      client_id: 'c1',
      redirect_uri: 'https://api.example.com/v/',
      scope: 's1 s2',
      state: 'st',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
    expect(Object.fromEntries(tokenRequestBody(oauth, 'code1', 'https://r/', 'v1'))).toStrictEqual({
      grant_type: 'authorization_code',
      client_id: 'c1',
      code: 'code1',
      redirect_uri: 'https://r/',
      code_verifier: 'v1',
    });
  });
});
