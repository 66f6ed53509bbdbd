/**
 * The directory file without a table: the schema (zod) and its messages, the checks of the target directory
 * (references, things claimed twice), the entity-level plan, and the YAML text (issues located by line, a canonical
 * layout that reads back identically).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonical,
  type DirectoryFile,
  emptyDirectory,
  formatPath,
  parseDirectoryFile,
} from '../../functions/core/directory/directory-file';
import {
  changeLine,
  checkTarget,
  diffDirectories,
  targetDirectory,
} from '../../functions/core/directory/directory-target';
import { directoryToYaml, issueLines, readDirectoryText } from '../../infra/cli/directory-yaml';
import { DEMO_DIRECTORY_FILE } from '../../infra/local/demo-world';

const parsed = (doc: unknown): DirectoryFile => {
  const r = parseDirectoryFile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.file;
};
const issues = (doc: unknown) => {
  const r = parseDirectoryFile(doc);
  return r.ok ? [] : r.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
};

describe('the schema', () => {
  it('accepts the demo directory, lists optional, account ids as numbers or strings', () => {
    const text = readDirectoryText('demo', readFileSync(DEMO_DIRECTORY_FILE, 'utf8'));
    expect(text.ok).toBe(true);
    const file = parsed(text.ok ? text.doc : undefined);
    expect(file.users.map((u) => u.sub)).toEqual(['alice', 'bob', 'carol', 'dave', 'mallory']);
    expect(parsed({ accounts: [{ id: 100, displayName: 'A' }] }).accounts).toEqual([{ id: '100', displayName: 'A' }]);
    expect(parsed({})).toEqual(emptyDirectory());
  });

  it('names each wrong entry by its path and says what is wrong', () => {
    expect(
      issues({
        users: [{ sub: 'a b', channels: ['XYZ'], reads: ['properties/x'] }],
        channels: [{ id: 'UCx', titel: 'typo' }],
        contentOwners: [
          { id: 'co', displayName: 'C', linkedChannels: [{ channelId: 'UCx', linkedSince: '2026-02-30' }] },
        ],
        properties: [{ name: 'properties/1' }],
        extra: true,
      }),
    ).toEqual([
      "users[0].sub: a sub is the token's `sub` claim: 1 to 256 characters, no spaces",
      "users[0].channels[0]: a channel id starts with 'UC' (letters, digits, '_', '-')",
      'users[0].reads[0]: a read is accounts/<id> or properties/<id>',
      'channels[0].title: required',
      "channels[0]: unknown field 'titel'",
      'contentOwners[0].linkedChannels[0].linkedSince: a day is written YYYY-MM-DD',
      'properties[0].propertyType: required',
      'properties[0].createTime: required',
      'properties[0].updateTime: required',
      'properties[0].parent: required',
      'properties[0].displayName: required',
      'properties[0].industryCategory: required',
      'properties[0].timeZone: required',
      'properties[0].currencyCode: required',
      'properties[0].serviceLevel: required',
      'properties[0].account: required',
      "(document): unknown field 'extra'",
    ]);
    expect(issues({ channels: [{ id: 'UCx', title: 5 }] })).toEqual([
      'channels[0].title: Invalid input: expected string, received number',
    ]);
    expect(issues({ properties: [{ propertyType: 'SOMETHING' }] })).toContain(
      'properties[0].propertyType: must be one of PROPERTY_TYPE_UNSPECIFIED, PROPERTY_TYPE_ORDINARY, PROPERTY_TYPE_SUBPROPERTY, PROPERTY_TYPE_ROLLUP',
    );
  });

  it('refuses duplicates, a subproperty without a property parent, half a trash, too many grants', () => {
    const property = {
      name: 'properties/1',
      propertyType: 'PROPERTY_TYPE_SUBPROPERTY',
      createTime: '2026-01-01T00:00:00Z',
      updateTime: '2026-01-01T00:00:00Z',
      parent: 'accounts/1',
      displayName: 'P',
      industryCategory: 'GAMES',
      timeZone: 'Mars/Olympus',
      currencyCode: 'USD',
      serviceLevel: 'GOOGLE_ANALYTICS_360',
      deleteTime: '2026-02-01T00:00:00Z',
      account: 'accounts/1',
    };
    const bad = {
      users: [
        { sub: 'a', channels: ['UCa', 'UCa'] },
        { sub: 'a' },
        { sub: 'b', reads: Array.from({ length: 99 }, (_, i) => `properties/${i}`) },
      ],
      properties: [property],
    };
    expect(issues(bad)).toEqual([
      'properties[0].timeZone: not an IANA time zone (e.g. America/Los_Angeles)',
      'properties[0].deleteTime: deleteTime and expireTime go together (trash)',
      'properties[0].parent: a subproperty has a property as parent',
      'users[1]: user a is already at users[0]',
      'users[0].channels[1]: entry UCa is already at users[0].channels[0]',
      'users[2]: too many grants (99; channels + 2 × contentOwners + reads ≤ 98): read a whole account (accounts/<id>) instead of its properties',
    ]);
  });
});

describe('the target directory', () => {
  const table = parsed({
    users: [{ sub: 'alice', channels: ['UCa'] }],
    channels: [{ id: 'UCa', title: 'A', videos: ['v1'] }],
    contentOwners: [{ id: 'co', displayName: 'CO', linkedChannels: [{ channelId: 'UCa', linkedSince: '2026-01-01' }] }],
  });

  it('without prune, the file’s entities replace or join the table’s; with prune, the file is all', () => {
    const file = parsed({ users: [{ sub: 'bob', channels: ['UCa'] }] });
    expect(targetDirectory(table, file, false).users.map((u) => u.sub)).toEqual(['alice', 'bob']);
    expect(targetDirectory(table, file, true).users.map((u) => u.sub)).toEqual(['bob']);
  });

  it('checks references against the target and blames the file’s entry', () => {
    const file = parsed({
      users: [{ sub: 'bob', channels: ['UCa', 'UCgone'], reads: ['accounts/1'] }],
      channels: [{ id: 'UCb', title: 'B', videos: ['v1'] }],
      contentOwners: [
        {
          id: 'co2',
          displayName: 'Two',
          linkedChannels: [
            { channelId: 'UCa', linkedSince: '2026-01-01' },
            { channelId: 'UCz', linkedSince: '2026-01-01' },
          ],
        },
      ],
    });
    const found = checkTarget(targetDirectory(table, file, false), file).map(
      (i) => `${formatPath(i.path)}: ${i.message}`,
    );
    expect(found).toEqual([
      'users[0].channels[1]: channel UCgone is defined neither in the file nor in the table',
      'users[0].reads[0]: accounts/1 is defined neither in the file nor in the table',
      'channels[0].videos[0]: video v1 is already listed by channel UCa (in the table)',
      'contentOwners[0].linkedChannels[0]: channel UCa is already linked to content owner co (in the table): a channel has one content owner',
      'contentOwners[0].linkedChannels[1].channelId: channel UCz is defined neither in the file nor in the table',
    ]);
    // With prune the table's channel is gone, so the user's reference to it is now the problem.
    const pruned = checkTarget(targetDirectory(table, file, true), file).map((i) => formatPath(i.path));
    expect(pruned).toContain('users[0].channels[0]');
  });

  it('diffs entity by entity, one line each', () => {
    const target = parsed({
      users: [{ sub: 'alice', channels: ['UCa'], reads: ['accounts/1'] }, { sub: 'carol' }],
      channels: [{ id: 'UCa', title: 'A2', videos: ['v1', 'v2', 'v3', 'v4', 'v5'] }],
      accounts: [{ id: '1', displayName: 'One' }],
    });
    expect(diffDirectories(table, canonical(target)).map(changeLine)).toEqual([
      '~ user alice: reads +1 (accounts/1)',
      '+ user carol',
      '~ channel UCa: title "A" → "A2"; videos +4 (v2, v3, v4, … 1 more)',
      '- content owner co: "CO"; linkedChannels UCa since 2026-01-01',
      '+ account 1: "One"',
    ]);
    expect(diffDirectories(table, table)).toEqual([]);
  });
});

describe('the YAML text', () => {
  it('reads back identically what it writes (the demo directory)', () => {
    const text = readFileSync(DEMO_DIRECTORY_FILE, 'utf8');
    const read = readDirectoryText('demo', text);
    const file = canonical(parsed(read.ok ? read.doc : undefined));
    const written = directoryToYaml(file);
    expect(written).toBe(text.replace(/^#.*\n/gm, ''));
    const again = readDirectoryText('x', written);
    expect(canonical(parsed(again.ok ? again.doc : undefined))).toEqual(file);
  });

  it('quotes what YAML would read as something else', () => {
    const file = canonical(parsed({ accounts: [{ id: '007', displayName: 'true' }], users: [{ sub: 'no' }] }));
    const text = directoryToYaml(file);
    expect(text).toContain('id: "007"');
    expect(text).toContain('displayName: "true"');
    expect(text).toContain('sub: "no"');
    const read = readDirectoryText('x', text);
    expect(parsed(read.ok ? read.doc : undefined)).toEqual(file);
  });

  it('locates an issue by line and column, and says where the text itself is broken', () => {
    const text = 'users:\n  - sub: erin\n    channels: [UCok, nope]\n';
    const read = readDirectoryText('team.yaml', text);
    const r = parseDirectoryFile(read.ok ? read.doc : undefined);
    expect(!r.ok && read.ok && issueLines(r.issues, read.where)).toEqual([
      "team.yaml:3:22: users[0].channels[1]: a channel id starts with 'UC' (letters, digits, '_', '-')",
    ]);
    const broken = readDirectoryText('team.yaml', 'users:\n  - sub: a\n  - sub: b\n    sub: c\n');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.messages[0]).toMatch(/^team\.yaml:4:5: Map keys must be unique/);
  });
});
