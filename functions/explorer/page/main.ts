/**
 * The Query Explorer page: sign in, build a reports.query from the catalog, run it, show table, chart, cost and the
 * request as curl and Python. Everything it calls is the API itself (plus /local/ sign-in on the local server).
 */
import type { ExplorerConfig } from '../config';
import { authorizeRedirect, codeChallenge, randomToken, tokenRequestBody } from '../pkce';
import {
  type DatePreset,
  dimensionChoices,
  filterChoices,
  matchingReports,
  metricChoices,
  type OwnerKind,
  presetRange,
} from '../query-options';
import { curlCommand, pythonSnippet, type QueryParams, reportsUrl } from '../snippets';
import { drawChart, type ReportTable } from './chart';

interface DemoUser {
  readonly sub: string;
  readonly contentOwners: readonly string[];
}

const config = JSON.parse(document.getElementById('explorer-config')?.textContent || '{}') as Partial<ExplorerConfig>;
const apiRoot = config.apiRoot ?? new URL('.', location.href).href;
const scopeBase = config.scopeBase ?? 'https://www.googleapis.com';
const SCOPES = [
  'video-analytics.readonly',
  'video-analytics-monetary.readonly',
  'video-platform',
  'video-platform-partner',
];
const OTHER_OWNER = 'other';

const el = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const make = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, unknown> = {}) =>
  Object.assign(document.createElement(tag), props) as HTMLElementTagNameMap[K];

const state = {
  token: sessionStorage.getItem('explorer.token') ?? '',
  who: sessionStorage.getItem('explorer.who') ?? '',
  users: [] as DemoUser[],
  dimensions: ['day'] as string[],
  metrics: ['views'] as string[],
  filters: [] as { name: string; value: string }[],
};

// --- signing in ---------------------------------------------------------------------------------------------------

function signedIn(token: string, who: string): void {
  state.token = token;
  state.who = who;
  sessionStorage.setItem('explorer.token', token);
  sessionStorage.setItem('explorer.who', who);
  showWho();
  renderOwners();
}

function showWho(): void {
  el('who').textContent = state.token ? `Signed in as ${state.who}.` : 'Not signed in.';
  el('sign-out').hidden = !state.token;
}

async function loadLocalUsers(): Promise<void> {
  const res = await fetch(`${apiRoot}local/config`).catch(() => undefined);
  if (!res?.ok) return;
  const body = (await res.json()) as { mode?: string; users?: DemoUser[] };
  if (body.mode !== 'local' || !body.users) return;
  state.users = body.users;
  const select = el<HTMLSelectElement>('demo-user');
  for (const u of body.users) select.append(make('option', { value: u.sub, textContent: u.sub }));
  el('local-sign-in').hidden = false;
}

async function demoSignIn(): Promise<void> {
  const sub = el<HTMLSelectElement>('demo-user').value;
  const res = await fetch(`${apiRoot}local/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub }),
  });
  if (!res.ok) return showError(`Sign-in failed (${res.status}).`);
  signedIn(((await res.json()) as { access_token: string }).access_token, sub);
}

/** Authorization code + PKCE: off to the identity provider, back here with ?code=…&state=…. */
async function oauthSignIn(): Promise<void> {
  if (!config.oauth) return;
  const verifier = randomToken();
  const stateValue = randomToken();
  sessionStorage.setItem('explorer.pkce', JSON.stringify({ verifier, state: stateValue }));
  const scopes = [...SCOPES, 'analytics.readonly'].map((s) => `${scopeBase}/auth/${s}`);
  location.assign(authorizeRedirect(config.oauth, apiRoot, scopes, stateValue, await codeChallenge(verifier)));
}

async function finishOAuth(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  if (!code || !config.oauth) return;
  history.replaceState(null, '', location.pathname);
  const saved = JSON.parse(sessionStorage.getItem('explorer.pkce') ?? '{}') as { verifier?: string; state?: string };
  sessionStorage.removeItem('explorer.pkce');
  if (!saved.verifier || saved.state !== params.get('state')) return showError('Sign-in answer did not match.');
  const res = await fetch(config.oauth.tokenUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: tokenRequestBody(config.oauth, code, apiRoot, saved.verifier),
  });
  if (!res.ok) return showError(`The token endpoint refused the sign-in (${res.status}).`);
  signedIn(((await res.json()) as { access_token: string }).access_token, 'your account');
}

// --- the query ----------------------------------------------------------------------------------------------------

const ownerKind = (): OwnerKind => (ownerIds().startsWith('contentOwner==') ? 'contentOwner' : 'channel');

function ownerIds(): string {
  const v = el<HTMLSelectElement>('owner').value;
  return v === OTHER_OWNER ? `contentOwner==${el<HTMLInputElement>('content-owner').value.trim()}` : v;
}

function renderOwners(): void {
  const select = el<HTMLSelectElement>('owner');
  const previous = select.value;
  select.replaceChildren(make('option', { value: 'channel==MINE', textContent: 'My channel (channel==MINE)' }));
  const mine = state.users.find((u) => u.sub === state.who)?.contentOwners ?? [];
  for (const co of mine)
    select.append(make('option', { value: `contentOwner==${co}`, textContent: `contentOwner==${co}` }));
  select.append(make('option', { value: OTHER_OWNER, textContent: 'Another content owner…' }));
  const preferred = mine[0] ? `contentOwner==${mine[0]}` : 'channel==MINE';
  select.value = [...select.options].some((o) => o.value === previous) ? previous : preferred;
  renderChoices();
}

function checkboxes(
  fieldset: string,
  choices: { name: string; enabled: boolean }[],
  chosen: string[],
  onChange: () => void,
) {
  const box = el(fieldset).querySelector('.choices') as HTMLElement;
  box.replaceChildren(
    ...choices.map(({ name, enabled }) => {
      const input = make('input', {
        type: 'checkbox',
        value: name,
        checked: chosen.includes(name),
        disabled: !enabled,
      });
      input.id = `${fieldset}-${name}`;
      input.addEventListener('change', () => {
        const i = chosen.indexOf(name);
        if (input.checked && i < 0) chosen.push(name);
        if (!input.checked && i >= 0) chosen.splice(i, 1);
        onChange();
      });
      const label = make('label', { htmlFor: input.id });
      label.append(input, make('span', { textContent: ` ${name}` }));
      return label;
    }),
  );
}

function renderChoices(): void {
  const kind = ownerKind();
  el('content-owner-field').hidden = el<HTMLSelectElement>('owner').value !== OTHER_OWNER;
  const dims = dimensionChoices(kind, state.dimensions);
  state.dimensions = state.dimensions.filter((d) => dims.some((c) => c.name === d));
  checkboxes('dimensions', dims, state.dimensions, renderChoices);
  const metrics = metricChoices(kind, state.dimensions, state.metrics);
  state.metrics = state.metrics.filter((m) => metrics.some((c) => c.name === m && c.enabled));
  checkboxes('metrics', metrics, state.metrics, renderChoices);
  renderFilters();
  renderSort();
  const reports = matchingReports(kind, state.dimensions, state.metrics);
  el('hint').textContent = reports[0]
    ? `This is report #${reports[0].id}, ${reports[0].name}${reports[0].sort ? ` (sort descending by ${reports[0].sort.descendingBy.join(' or ')})` : ''}${reports[0].maxResults?.required ? ', maxResults required' : ''}.`
    : 'No report takes these dimensions and metrics together yet: add or remove some (the API will say why).';
}

function renderFilters(): void {
  const names = [...new Set([...filterChoices(ownerKind(), state.dimensions), 'group'])];
  el('filter-rows').replaceChildren(
    ...state.filters.map((f, i) => {
      const row = make('div', { className: 'row' });
      const name = make('select', { id: `filter-name-${i}` });
      for (const n of new Set([...names, f.name])) name.append(make('option', { value: n, textContent: n }));
      name.value = f.name;
      name.addEventListener('change', () => {
        f.name = name.value;
      });
      const value = make('input', { id: `filter-value-${i}`, type: 'text', value: f.value, autocomplete: 'off' });
      value.addEventListener('input', () => {
        f.value = value.value;
      });
      const remove = make('button', { type: 'button', textContent: 'Remove' });
      remove.setAttribute('aria-label', `Remove filter ${i + 1}`);
      remove.addEventListener('click', () => {
        state.filters.splice(i, 1);
        renderFilters();
      });
      row.append(
        make('label', { htmlFor: name.id, textContent: `Filter ${i + 1}` }),
        name,
        make('label', { htmlFor: value.id, textContent: 'equals' }),
        value,
        remove,
      );
      return row;
    }),
  );
}

function renderSort(): void {
  const select = el<HTMLSelectElement>('sort');
  // First render: sort by the first dimension (days in order); later, keep the person's choice.
  const previous = select.options.length ? select.value : (state.dimensions[0] ?? '');
  select.replaceChildren(make('option', { value: '', textContent: '(none)' }));
  for (const n of [...state.dimensions, ...state.metrics]) select.append(make('option', { value: n, textContent: n }));
  select.value = [...select.options].some((o) => o.value === previous) ? previous : (state.dimensions[0] ?? '');
}

function queryParams(): QueryParams {
  const p: Record<string, string> = {
    ids: ownerIds(),
    startDate: el<HTMLInputElement>('start-date').value,
    endDate: el<HTMLInputElement>('end-date').value,
    metrics: state.metrics.join(','),
  };
  if (state.dimensions.length) p.dimensions = state.dimensions.join(',');
  const filters = state.filters.filter((f) => f.value.trim()).map((f) => `${f.name}==${f.value.trim()}`);
  if (filters.length) p.filters = filters.join(';');
  const sort = el<HTMLSelectElement>('sort').value;
  if (sort) p.sort = `${el<HTMLSelectElement>('sort-order').value === 'desc' ? '-' : ''}${sort}`;
  const max = el<HTMLInputElement>('max-results').value.trim();
  if (max) p.maxResults = max;
  return p;
}

// --- results ------------------------------------------------------------------------------------------------------

function showError(message: string): void {
  const box = el('error');
  box.textContent = message;
  box.hidden = false;
}

function authHeaders(): Record<string, string> {
  return { Authorization: `Bearer ${state.token}` };
}

async function apiError(res: Response): Promise<string> {
  const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  const message = body?.error?.message ?? res.statusText;
  return res.status === 401 ? `${message} Sign in again.` : `The API refused the query (${res.status}): ${message}`;
}

function renderTable(table: ReportTable): void {
  const t = el<HTMLTableElement>('result-table');
  const head = make('tr');
  for (const h of table.columnHeaders) head.append(make('th', { scope: 'col', textContent: h.name }));
  t.tHead?.replaceChildren(head);
  t.tBodies[0]?.replaceChildren(
    ...(table.rows ?? []).map((r) => {
      const tr = make('tr');
      for (const v of r) tr.append(make('td', { textContent: String(v ?? '') }));
      return tr;
    }),
  );
  t.hidden = false;
}

async function runQuery(event: Event): Promise<void> {
  event.preventDefault();
  el('error').hidden = true;
  const params = queryParams();
  el('curl').textContent = curlCommand(apiRoot, params);
  el('python').textContent = pythonSnippet(apiRoot, params);
  if (!state.token) return showError('Sign in first.');
  el('status').textContent = 'Running…';
  const res = await fetch(reportsUrl(apiRoot, params), { headers: authHeaders() }).catch(() => undefined);
  if (!res) {
    el('status').textContent = '';
    return showError('The API could not be reached.');
  }
  if (!res.ok) {
    el('status').textContent = '';
    el('result-table').hidden = true;
    el('chart-figure').hidden = true;
    return showError(await apiError(res));
  }
  const table = (await res.json()) as ReportTable;
  renderTable(table);
  const figure = el('chart-figure');
  figure.hidden = false;
  const canvas = el<HTMLCanvasElement>('chart');
  const { kind, summary } = drawChart(canvas, table);
  canvas.setAttribute('aria-label', summary);
  canvas.dataset.rendered = kind;
  el('chart-caption').textContent = summary;
  const items = res.headers.get('X-Items-Read');
  const bytes = res.headers.get('X-Bytes-Read');
  el('status').textContent =
    `${table.rows?.length ?? 0} rows. Cost: ${items ?? '?'} items read (X-Items-Read)` +
    `${bytes ? `, ${bytes} bytes` : ''}.`;
}

async function listGroups(): Promise<void> {
  el('error').hidden = true;
  if (!state.token) return showError('Sign in first.');
  const ids = ownerIds();
  const onBehalf = ids.startsWith('contentOwner==')
    ? `&onBehalfOfContentOwner=${encodeURIComponent(ids.slice(14))}`
    : '';
  const res = await fetch(`${apiRoot}v2/groups?mine=true${onBehalf}`, { headers: authHeaders() });
  if (!res.ok) return showError(await apiError(res));
  const body = (await res.json()) as { items?: { id: string; snippet: { title: string } }[] };
  const list = el('group-list');
  list.replaceChildren(
    ...(body.items ?? []).map((g) => {
      const use = make('button', { type: 'button', textContent: 'Filter by this group' });
      use.setAttribute('aria-label', `Filter by group ${g.snippet.title}`);
      use.addEventListener('click', () => {
        state.filters = state.filters.filter((f) => f.name !== 'group');
        state.filters.push({ name: 'group', value: g.id });
        renderFilters();
      });
      const item = make('li', { textContent: `${g.snippet.title} (${g.id}) ` });
      item.append(use);
      return item;
    }),
  );
  if (!body.items?.length) list.replaceChildren(make('li', { textContent: 'No groups.' }));
}

function applyPreset(preset: DatePreset): void {
  const { startDate, endDate } = presetRange(preset, new Date());
  el<HTMLInputElement>('start-date').value = startDate;
  el<HTMLInputElement>('end-date').value = endDate;
}

// --- wiring -------------------------------------------------------------------------------------------------------

el('demo-sign-in').addEventListener('click', () => void demoSignIn());
el('oauth-button').addEventListener('click', () => void oauthSignIn());
el('token-use').addEventListener('click', () => {
  const token = el<HTMLTextAreaElement>('token-input').value.trim();
  if (token) signedIn(token, 'a pasted token');
});
el('sign-out').addEventListener('click', () => {
  sessionStorage.removeItem('explorer.token');
  sessionStorage.removeItem('explorer.who');
  state.token = '';
  state.who = '';
  showWho();
  renderOwners();
});
el('owner').addEventListener('change', renderChoices);
el('content-owner').addEventListener('change', renderChoices);
el('add-filter').addEventListener('click', () => {
  state.filters.push({ name: filterChoices(ownerKind(), state.dimensions)[0] ?? 'video', value: '' });
  renderFilters();
});
for (const b of document.querySelectorAll<HTMLButtonElement>('[data-preset]')) {
  b.addEventListener('click', () => applyPreset(b.dataset.preset as DatePreset));
}
el('query').addEventListener('submit', (e) => void runQuery(e));
el('list-groups').addEventListener('click', () => void listGroups());

el('oauth-sign-in').hidden = !config.oauth;
applyPreset('last28');
showWho();
renderOwners();
void loadLocalUsers().then(renderOwners);
void finishOAuth();
