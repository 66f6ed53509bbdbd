/**
 * From what the table holds and what a file says to the directory an apply makes (the target), whether the target
 * holds together (every reference resolves, nothing is claimed twice), and what changes, entity by entity. Pure.
 */
import {
  canonical,
  type DirectoryFile,
  type DirectoryIssue,
  type DocPath,
  emptyDirectory,
  formatPath,
} from './directory-file';

export type EntityKind = 'user' | 'channel' | 'contentOwner' | 'account' | 'property';
export type Section = keyof DirectoryFile;

export const SECTIONS: readonly { kind: EntityKind; section: Section; noun: string }[] = [
  { kind: 'user', section: 'users', noun: 'user' },
  { kind: 'channel', section: 'channels', noun: 'channel' },
  { kind: 'contentOwner', section: 'contentOwners', noun: 'content owner' },
  { kind: 'account', section: 'accounts', noun: 'account' },
  { kind: 'property', section: 'properties', noun: 'property' },
];

type Entity = DirectoryFile[Section][number];

/** The id of an entity within its section (a user's sub, a property's name, the others' id). */
export const entityId = (entity: Entity): string =>
  'sub' in entity ? entity.sub : 'name' in entity ? entity.name : entity.id;

const byId = <T extends Entity>(list: readonly T[]) => new Map(list.map((e) => [entityId(e), e]));

/** With --prune the file is the whole directory; without, its entities replace or join the table's. */
export function targetDirectory(current: DirectoryFile, file: DirectoryFile, prune: boolean): DirectoryFile {
  if (prune) return canonical(file);
  const out = emptyDirectory();
  for (const { section } of SECTIONS) {
    const merged = byId<Entity>(current[section]);
    for (const e of file[section]) merged.set(entityId(e), e);
    (out[section] as Entity[]) = [...merged.values()];
  }
  return canonical(out);
}

/**
 * Every reference of the target that does not resolve, and every resource claimed twice, named by its place in the
 * file. Entities only the table holds are trusted (the file cannot remove them without --prune, and apply only ever
 * writes targets that passed this check).
 */
export function checkTarget(target: DirectoryFile, file: DirectoryFile): DirectoryIssue[] {
  const issues: DirectoryIssue[] = [];
  const placeInFile = new Map<string, number>();
  for (const { section } of SECTIONS) {
    file[section].forEach((e, i) => {
      placeInFile.set(`${section}|${entityId(e)}`, i);
    });
  }
  const fromFile = (section: Section, id: string): DocPath | undefined => {
    const i = placeInFile.get(`${section}|${id}`);
    return i === undefined ? undefined : [section, i];
  };
  /** An issue at `field[index][.sub]` of an entity, when the file holds it (the place is then the file's). */
  const report = (section: Section, id: string, field: string, index: number, message: string, sub?: string) => {
    const at = fromFile(section, id);
    if (at) issues.push({ path: index < 0 ? [...at, field] : [...at, field, index, ...(sub ? [sub] : [])], message });
  };
  const where = (section: Section, id: string) => {
    const at = fromFile(section, id);
    return at ? formatPath(at) : 'in the table';
  };
  const known = {
    channels: new Set(target.channels.map((c) => c.id)),
    contentOwners: new Set(target.contentOwners.map((c) => c.id)),
    reads: new Set([...target.accounts.map((a) => `accounts/${a.id}`), ...target.properties.map((p) => p.name)]),
  };
  const missing = (what: string) => `${what} is defined neither in the file nor in the table`;
  /** Entities the file holds, in file order, with the place of each list entry as written. */
  const inFile = <S extends Section>(section: S) => file[section] as DirectoryFile[S];

  for (const u of inFile('users')) {
    u.channels.forEach((c, i) => {
      if (!known.channels.has(c)) report('users', u.sub, 'channels', i, missing(`channel ${c}`));
    });
    u.contentOwners.forEach((co, i) => {
      if (!known.contentOwners.has(co)) report('users', u.sub, 'contentOwners', i, missing(`content owner ${co}`));
    });
    u.reads.forEach((r, i) => {
      if (!known.reads.has(r)) report('users', u.sub, 'reads', i, missing(r));
    });
  }

  /**
   * A resource belongs to one channel (videos, playlists) or one content owner (assets, links): the table's entities
   * claim first, then the file's in file order, so a conflict is always reported at the file's entry.
   */
  const claimOnce = (
    section: 'channels' | 'contentOwners',
    field: string,
    valuesOf: (e: Entity) => readonly string[],
    message: (value: string, owner: string) => string,
  ) => {
    const ownerOf = new Map<string, string>();
    const fileIds = new Set(inFile(section).map(entityId));
    const order = [...target[section].filter((e) => !fileIds.has(entityId(e))), ...inFile(section)];
    for (const e of order) {
      valuesOf(e).forEach((v, i) => {
        const other = ownerOf.get(v);
        if (other === undefined) ownerOf.set(v, entityId(e));
        else report(section, entityId(e), field, i, message(v, other));
      });
    }
  };
  const listedBy = (noun: string, owner: string) => (v: string, other: string) =>
    `${noun} ${v} is already listed by ${owner} ${other} (${where(owner === 'channel' ? 'channels' : 'contentOwners', other)})`;
  claimOnce('channels', 'videos', (e) => (e as DirectoryFile['channels'][number]).videos, listedBy('video', 'channel'));
  claimOnce(
    'channels',
    'playlists',
    (e) => (e as DirectoryFile['channels'][number]).playlists,
    listedBy('playlist', 'channel'),
  );
  claimOnce(
    'contentOwners',
    'assets',
    (e) => (e as DirectoryFile['contentOwners'][number]).assets,
    listedBy('asset', 'content owner'),
  );
  const links = (e: Entity) => (e as DirectoryFile['contentOwners'][number]).linkedChannels.map((l) => l.channelId);
  claimOnce(
    'contentOwners',
    'linkedChannels',
    links,
    (v, other) =>
      `channel ${v} is already linked to content owner ${other} (${where('contentOwners', other)}): a channel has one content owner`,
  );
  for (const co of inFile('contentOwners')) {
    co.linkedChannels.forEach((l, i) => {
      if (!known.channels.has(l.channelId)) {
        report('contentOwners', co.id, 'linkedChannels', i, missing(`channel ${l.channelId}`), 'channelId');
      }
    });
  }

  const accounts = new Set(target.accounts.map((a) => `accounts/${a.id}`));
  const properties = new Set(target.properties.map((p) => p.name));
  for (const p of target.properties) {
    const at = fromFile('properties', p.name);
    if (!at) continue;
    if (!accounts.has(p.account))
      issues.push({
        path: [...at, 'account'],
        message: `${p.account} is defined neither in the file nor in the table`,
      });
    if (!accounts.has(p.parent) && !properties.has(p.parent)) {
      issues.push({ path: [...at, 'parent'], message: `${p.parent} is defined neither in the file nor in the table` });
    }
  }
  return issues;
}

export interface EntityChange {
  readonly op: 'add' | 'change' | 'remove';
  readonly kind: EntityKind;
  readonly id: string;
  /** What differs, short (`title "A" → "B"`, `videos +3 (v1, v2, v3)`). */
  readonly details: readonly string[];
}

const SHOWN = 3;
const few = (values: readonly string[]) =>
  values.length <= SHOWN ? values.join(', ') : `${values.slice(0, SHOWN).join(', ')}, … ${values.length - SHOWN} more`;

function listDelta(field: string, before: readonly string[], after: readonly string[]): string | undefined {
  const was = new Set(before);
  const now = new Set(after);
  const added = after.filter((v) => !was.has(v));
  const removed = before.filter((v) => !now.has(v));
  const parts = [
    ...(added.length ? [`+${added.length} (${few(added)})`] : []),
    ...(removed.length ? [`-${removed.length} (${few(removed)})`] : []),
  ];
  return parts.length ? `${field} ${parts.join(' ')}` : undefined;
}

const show = (v: unknown) => (v === undefined ? '(unset)' : JSON.stringify(v));

/** Field by field: scalar fields as `field old → new`, lists as what joins and leaves. */
function fieldDeltas(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [a, b] = [before[field], after[field]];
    if (Array.isArray(a) || Array.isArray(b)) {
      const delta = listDelta(field, ((a as unknown[]) ?? []).map(flat), ((b as unknown[]) ?? []).map(flat));
      if (delta) out.push(delta);
    } else if (a !== b) out.push(`${field} ${show(a)} → ${show(b)}`);
  }
  return out;
}

/** Links show as `UCx since 2026-01-01`; other list entries are strings already. */
const flat = (v: unknown) => {
  const link = v as { channelId?: string; linkedSince?: string };
  return typeof v === 'object' && link.channelId ? `${link.channelId} since ${link.linkedSince}` : String(v);
};

/** A summary of a new entity: its non-empty lists by size, its name or title. */
function summary(entity: Entity): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(entity)) {
    if (Array.isArray(value)) {
      if (value.length) out.push(`${field} ${value.length <= SHOWN ? value.map(flat).join(', ') : value.length}`);
    } else if (field === 'title' || field === 'displayName') out.push(JSON.stringify(value));
  }
  return out;
}

/** What turns `current` into `target`, in section order, then id order. */
export function diffDirectories(current: DirectoryFile, target: DirectoryFile): EntityChange[] {
  const changes: EntityChange[] = [];
  for (const { kind, section } of SECTIONS) {
    const before = byId<Entity>(current[section]);
    const after = byId<Entity>(target[section]);
    for (const id of [...new Set([...before.keys(), ...after.keys()])].sort()) {
      const [a, b] = [before.get(id), after.get(id)];
      if (!a && b) changes.push({ op: 'add', kind, id, details: summary(b) });
      else if (a && !b) changes.push({ op: 'remove', kind, id, details: summary(a) });
      else if (a && b && JSON.stringify(a) !== JSON.stringify(b)) {
        changes.push({ op: 'change', kind, id, details: fieldDeltas(a as never, b as never) });
      }
    }
  }
  return changes;
}

const SIGN = { add: '+', change: '~', remove: '-' } as const;
const NOUN = Object.fromEntries(SECTIONS.map((s) => [s.kind, s.noun])) as Record<EntityKind, string>;

/** One line per change: `+ user erin: channels UCnew`, `~ channel UCx: title "A" → "B"`, `- user mallory`. */
export const changeLine = (c: EntityChange): string =>
  `${SIGN[c.op]} ${NOUN[c.kind]} ${c.id}${c.details.length ? `: ${c.details.join('; ')}` : ''}`;

export const countChanges = (changes: readonly EntityChange[]) => ({
  add: changes.filter((c) => c.op === 'add').length,
  change: changes.filter((c) => c.op === 'change').length,
  remove: changes.filter((c) => c.op === 'remove').length,
});
