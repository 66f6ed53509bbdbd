/** The Query Explorer's request, shown as curl and as Python (Google's client, built from this API's discovery). */

export type QueryParams = Readonly<Record<string, string>>;

/** `https://root/v2/reports?…`, parameters in the order given, values encoded as URLSearchParams does. */
export const reportsUrl = (apiRoot: string, params: QueryParams): string =>
  `${apiRoot}v2/reports?${new URLSearchParams(params as Record<string, string>)}`;

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export const curlCommand = (apiRoot: string, params: QueryParams): string =>
  `curl -H "Authorization: Bearer $TOKEN" \\\n  ${shellQuote(reportsUrl(apiRoot, params))}`;

const INTEGER_PARAMS = new Set(['maxResults', 'startIndex']);
const pyString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function pythonSnippet(apiRoot: string, params: QueryParams): string {
  const args = Object.entries(params).map(([k, v]) =>
    INTEGER_PARAMS.has(k) && /^\d+$/.test(v) ? `    ${k}=${v},` : `    ${k}=${pyString(v)},`,
  );
  return [
    'from google.oauth2.credentials import Credentials',
    'from googleapiclient.discovery import build',
    '',
    `api = build('youtubeAnalytics', 'v2', credentials=Credentials(TOKEN), cache_discovery=False,`,
    `            discoveryServiceUrl=${pyString(`${apiRoot}$discovery/rest?version={apiVersion}`)})`,
    'report = api.reports().query(',
    ...args,
    ').execute()',
  ].join('\n');
}
