/**
 * The directory file an operator owns (docs/directory-file.md): who owns which channel, content owner, account and
 * property. Its shape is validated by a zod schema; the cross-references (a user owning a channel nobody defines, a
 * link to an unknown channel, a video listed by two channels) are checked on the directory the file would produce
 * (directory-target.ts), because a file may add to what the table already holds.
 */
import { z } from 'zod';
import { INDUSTRY_CATEGORIES, PROPERTY_TYPES, type Property, SERVICE_LEVELS } from '../properties/property';
import { toProperty } from '../properties/property-repository';

/** A place in the document: `users[3].channels[0]` is `['users', 3, 'channels', 0]`. */
export type DocPath = readonly (string | number)[];

export interface DirectoryIssue {
  readonly path: DocPath;
  readonly message: string;
}

export const formatPath = (path: DocPath): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '(document)';

/** Listed resources per channel or content owner: more should come from ingest (the record holds the list). */
export const MAX_LISTED_RESOURCES = 10_000;
/** Links per content owner (its CHANNELS item, read by key with a report's facts, holds them all). */
export const MAX_LINKS = 5_000;
/** Grant items per user: a removed user loses them all in one transaction (100 actions, one is the lease). */
export const MAX_USER_GRANTS = 98;

const ID = /^[A-Za-z0-9_-]{1,128}$/;
const id = (what: string) => z.string().regex(ID, `${what} must be 1 to 128 letters, digits, '_' or '-'`);
const channelId = z
  .string()
  .regex(/^UC[A-Za-z0-9_-]{1,126}$/, "a channel id starts with 'UC' (letters, digits, '_', '-')");
const numericId = (what: string) =>
  z
    .union([z.string(), z.number().int().nonnegative()])
    .transform(String)
    .pipe(z.string().regex(/^[0-9]{1,20}$/, `${what} is a decimal number`));
const day = z.iso.date('a day is written YYYY-MM-DD');
const time = z.iso.datetime({ offset: true, message: 'a time is written in RFC 3339 (2026-01-31T12:00:00Z)' });
const text = (what: string) => z.string().trim().min(1, `${what} must not be empty`).max(500);
const list = <T extends z.ZodType>(item: T, max = MAX_LISTED_RESOURCES) =>
  z.array(item).max(max, `at most ${max} entries`).default([]);

const user = z.strictObject({
  sub: z.string().regex(/^\S{1,256}$/, "a sub is the token's `sub` claim: 1 to 256 characters, no spaces"),
  channels: list(channelId),
  contentOwners: list(id('a content owner id')),
  reads: list(z.string().regex(/^(accounts|properties)\/[0-9]{1,20}$/, 'a read is accounts/<id> or properties/<id>')),
});

const channel = z.strictObject({
  id: channelId,
  title: text('a channel title'),
  videos: list(id('a video id')),
  playlists: list(id('a playlist id')),
});

const contentOwner = z.strictObject({
  id: id('a content owner id'),
  displayName: text('a display name'),
  linkedChannels: list(z.strictObject({ channelId, linkedSince: day }), MAX_LINKS),
  assets: list(id('an asset id')),
  claimedVideos: list(id('a video id')),
});

const account = z.strictObject({ id: numericId('an account id'), displayName: text('a display name') });

const accountName = z.string().regex(/^accounts\/[0-9]{1,20}$/, 'an account is accounts/<id>');
const property = z
  .strictObject({
    name: z.string().regex(/^properties\/[0-9]{1,20}$/, 'a property is properties/<id>'),
    propertyType: z.enum(PROPERTY_TYPES),
    createTime: time,
    updateTime: time,
    parent: z.string().regex(/^(accounts|properties)\/[0-9]{1,20}$/, 'a parent is accounts/<id> or properties/<id>'),
    displayName: text('a display name'),
    industryCategory: z.enum(INDUSTRY_CATEGORIES),
    timeZone: z.string().refine(isTimeZone, 'not an IANA time zone (e.g. America/Los_Angeles)'),
    currencyCode: z.string().regex(/^[A-Z]{3}$/, 'a currency code is ISO 4217 (e.g. USD)'),
    serviceLevel: z.enum(SERVICE_LEVELS),
    deleteTime: time.optional(),
    expireTime: time.optional(),
    account: accountName,
  })
  .superRefine((p, ctx) => {
    if ((p.deleteTime === undefined) !== (p.expireTime === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['deleteTime'], message: 'deleteTime and expireTime go together (trash)' });
    }
    const sub = p.propertyType === 'PROPERTY_TYPE_SUBPROPERTY';
    if (sub !== p.parent.startsWith('properties/')) {
      ctx.addIssue({
        code: 'custom',
        path: ['parent'],
        message: sub ? 'a subproperty has a property as parent' : 'only a subproperty has a property as parent',
      });
    }
    if (!sub && p.parent !== p.account) {
      ctx.addIssue({ code: 'custom', path: ['parent'], message: 'the parent of a property is its account' });
    }
  });

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

/** Flags each repeated value of `values` (by `key`) at its second and later places. */
function noRepeats<T>(ctx: z.RefinementCtx, values: readonly T[], key: (v: T) => string, at: DocPath, what: string) {
  const first = new Map<string, number>();
  values.forEach((v, i) => {
    const k = key(v);
    const seen = first.get(k);
    if (seen === undefined) first.set(k, i);
    else
      ctx.addIssue({
        code: 'custom',
        path: [...at, i],
        message: `${what} ${k} is already at ${formatPath([...at, seen])}`,
      });
  });
}

const sections = {
  users: z.array(user).default([]),
  channels: z.array(channel).default([]),
  contentOwners: z.array(contentOwner).default([]),
  accounts: z.array(account).default([]),
  properties: z.array(property).default([]),
};

export const directoryFileSchema = z.strictObject(sections).superRefine((doc, ctx) => {
  noRepeats(ctx, doc.users, (u) => u.sub, ['users'], 'user');
  noRepeats(ctx, doc.channels, (c) => c.id, ['channels'], 'channel');
  noRepeats(ctx, doc.contentOwners, (c) => c.id, ['contentOwners'], 'content owner');
  noRepeats(ctx, doc.accounts, (a) => a.id, ['accounts'], 'account');
  noRepeats(ctx, doc.properties, (p) => p.name, ['properties'], 'property');
  doc.users.forEach((u, i) => {
    for (const field of ['channels', 'contentOwners', 'reads'] as const) {
      noRepeats(ctx, u[field], String, ['users', i, field], 'entry');
    }
    const grants = u.channels.length + 2 * u.contentOwners.length + u.reads.length;
    if (grants > MAX_USER_GRANTS) {
      ctx.addIssue({
        code: 'custom',
        path: ['users', i],
        message: `too many grants (${grants}; channels + 2 × contentOwners + reads ≤ ${MAX_USER_GRANTS}): read a whole account (accounts/<id>) instead of its properties`,
      });
    }
  });
  doc.channels.forEach((c, i) => {
    noRepeats(ctx, c.videos, String, ['channels', i, 'videos'], 'video');
    noRepeats(ctx, c.playlists, String, ['channels', i, 'playlists'], 'playlist');
  });
  doc.contentOwners.forEach((co, i) => {
    noRepeats(ctx, co.linkedChannels, (l) => l.channelId, ['contentOwners', i, 'linkedChannels'], 'link to');
    noRepeats(ctx, co.assets, String, ['contentOwners', i, 'assets'], 'asset');
    noRepeats(ctx, co.claimedVideos, String, ['contentOwners', i, 'claimedVideos'], 'video');
  });
});

export type DirectoryFile = z.output<typeof directoryFileSchema>;
/** What a caller may pass (lists optional, ids as numbers where YAML reads them so). */
export type DirectoryFileInput = z.input<typeof directoryFileSchema>;
export type DirectoryUser = DirectoryFile['users'][number];
export type DirectoryChannel = DirectoryFile['channels'][number];
export type DirectoryContentOwner = DirectoryFile['contentOwners'][number];
export type DirectoryAccount = DirectoryFile['accounts'][number];
export type DirectoryProperty = Property;

export const emptyDirectory = (): DirectoryFile => ({
  users: [],
  channels: [],
  contentOwners: [],
  accounts: [],
  properties: [],
});

/**
 * Validates a parsed document (YAML or JSON): the file as written (entries in the document's order, so issues found
 * later can name their place), or every issue found.
 */
export function parseDirectoryFile(
  doc: unknown,
): { ok: true; file: DirectoryFile } | { ok: false; issues: DirectoryIssue[] } {
  const parsed = directoryFileSchema.safeParse(doc ?? {}, { reportInput: true });
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({ path: i.path as DocPath, message: issueMessage(i) })),
    };
  }
  return { ok: true, file: parsed.data };
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined) return 'required';
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.join(', ')}`;
  return issue.message;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sorted = (values: readonly string[]) => [...values].sort(byText);

/** Entities by id, lists sorted: the form stored, compared and exported, so an export reads back identically. */
export function canonical(file: DirectoryFile): DirectoryFile {
  return {
    users: file.users
      .map((u) => ({
        sub: u.sub,
        channels: sorted(u.channels),
        contentOwners: sorted(u.contentOwners),
        reads: sorted(u.reads),
      }))
      .sort((a, b) => byText(a.sub, b.sub)),
    channels: file.channels
      .map((c) => ({ id: c.id, title: c.title, videos: sorted(c.videos), playlists: sorted(c.playlists) }))
      .sort((a, b) => byText(a.id, b.id)),
    contentOwners: file.contentOwners
      .map((co) => ({
        id: co.id,
        displayName: co.displayName,
        linkedChannels: [...co.linkedChannels]
          .map((l) => ({ channelId: l.channelId, linkedSince: l.linkedSince }))
          .sort((a, b) => byText(a.channelId, b.channelId)),
        assets: sorted(co.assets),
        claimedVideos: sorted(co.claimedVideos),
      }))
      .sort((a, b) => byText(a.id, b.id)),
    accounts: file.accounts
      .map((a) => ({ id: a.id, displayName: a.displayName }))
      .sort((a, b) => Number(a.id) - Number(b.id) || byText(a.id, b.id)),
    properties: file.properties
      .map((p) => toProperty(p as unknown as Record<string, unknown>))
      .sort((a, b) => Number(a.name.slice(11)) - Number(b.name.slice(11)) || byText(a.name, b.name)),
  };
}
