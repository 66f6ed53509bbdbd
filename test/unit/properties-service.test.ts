/** properties.get domain logic over in-memory fakes of the property and directory repositories. */
import { describe, expect, it } from 'vitest';
import type { DirectoryRepository, Profile } from '../../functions/core/directory/directory';
import { DomainError } from '../../functions/core/errors';
import type { Property } from '../../functions/core/properties/property';
import {
  getProperty,
  type PropertyDeps,
  type PropertyRepository,
} from '../../functions/core/properties/property-service';

const property = (id: string, overrides: Partial<Property> = {}): Property => ({
  name: `properties/${id}`,
  propertyType: 'PROPERTY_TYPE_ORDINARY',
  createTime: '2024-03-01T10:00:00.000Z',
  updateTime: '2026-06-15T08:30:00.000Z',
  parent: 'accounts/10',
  displayName: `Property ${id}`,
  industryCategory: 'TECHNOLOGY',
  timeZone: 'Europe/Paris',
  currencyCode: 'EUR',
  serviceLevel: 'GOOGLE_ANALYTICS_STANDARD',
  account: 'accounts/10',
  ...overrides,
});

const P1 = property('1');
const P2 = property('2', { parent: 'accounts/20', account: 'accounts/20' });
const SUB = property('3', {
  propertyType: 'PROPERTY_TYPE_SUBPROPERTY',
  parent: 'properties/2',
  account: 'accounts/20',
  deleteTime: '2026-11-01T09:00:00.000Z',
  expireTime: '2026-12-06T09:00:00.000Z',
});

class FakeProperties implements PropertyRepository {
  readonly calls: string[] = [];
  constructor(private readonly byId: Map<string, Property>) {}
  async get(propertyId: string) {
    this.calls.push(propertyId);
    return this.byId.get(propertyId);
  }
}

class FakeDirectory implements DirectoryRepository {
  readonly calls: string[] = [];
  constructor(private readonly readsBySub: Record<string, string[]>) {}
  async profile(sub: string): Promise<Profile> {
    this.calls.push(sub);
    return { sub, channels: [], contentOwners: [], reads: new Set(this.readsBySub[sub] ?? []) };
  }
}

const world = () => {
  const properties = new FakeProperties(
    new Map([
      ['1', P1],
      ['2', P2],
      ['3', SUB],
    ]),
  );
  const directory = new FakeDirectory({
    accountReader: ['accounts/10'],
    propertyReader: ['properties/2'],
    subReader: ['properties/3'],
    otherAccount: ['accounts/99', 'properties/99'],
    nobody: [],
  });
  const deps: PropertyDeps = { properties, directory };
  return { deps, properties, directory };
};

async function thrown(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected getProperty to throw');
}

const described = (e: DomainError) => ({ kind: e.kind, reason: e.reason, message: e.message, where: e.where });
const FORBIDDEN = {
  kind: 'permission_denied',
  reason: 'forbidden',
  message: 'The caller does not have permission',
  where: {},
};

describe('getProperty: access', () => {
  it('an account-level grant reads a property of that account', async () => {
    const { deps } = world();

    expect(await getProperty(deps, 'accountReader', '1')).toStrictEqual(P1);
  });

  it('a property-level grant reads that property', async () => {
    const { deps } = world();

    expect(await getProperty(deps, 'propertyReader', '2')).toStrictEqual(P2);
  });

  it('a grant on the parent property reads its subproperty (trash fields included)', async () => {
    const { deps } = world();

    expect(await getProperty(deps, 'propertyReader', '3')).toStrictEqual(SUB);
  });

  it('a grant on a subproperty does not read its parent property', async () => {
    const { deps } = world();

    expect(described(await thrown(getProperty(deps, 'subReader', '2')))).toStrictEqual(FORBIDDEN);
    expect(await getProperty(deps, 'subReader', '3')).toStrictEqual(SUB);
  });

  it('a property-level grant does not extend to other properties of the same account', async () => {
    const sibling = property('4', { parent: 'accounts/20', account: 'accounts/20' });
    const deps: PropertyDeps = {
      properties: new FakeProperties(new Map([['4', sibling]])),
      directory: new FakeDirectory({ propertyReader: ['properties/2'], accountReader: ['accounts/20'] }),
    };

    expect(described(await thrown(getProperty(deps, 'propertyReader', '4')))).toStrictEqual(FORBIDDEN);
    expect(await getProperty(deps, 'accountReader', '4')).toStrictEqual(sibling);
  });

  it('no grant → 403 forbidden', async () => {
    const { deps } = world();

    expect(described(await thrown(getProperty(deps, 'nobody', '1')))).toStrictEqual(FORBIDDEN);
    expect(described(await thrown(getProperty(deps, 'otherAccount', '1')))).toStrictEqual(FORBIDDEN);
    expect(described(await thrown(getProperty(deps, 'unknown-sub', '2')))).toStrictEqual(FORBIDDEN);
  });

  it('a missing property gives the identical 403, even to a reader of everything else', async () => {
    const { deps } = world();
    const unreadable = await thrown(getProperty(deps, 'propertyReader', '1'));
    const missing = await thrown(getProperty(deps, 'propertyReader', '999999'));
    const missingForAccountReader = await thrown(getProperty(deps, 'accountReader', '999999'));

    expect(described(missing)).toStrictEqual(described(unreadable));
    expect(described(missingForAccountReader)).toStrictEqual(FORBIDDEN);
    expect(missing.name).toBe(unreadable.name);
  });

  it('asks the repositories about exactly the requested id and caller', async () => {
    const { deps, properties, directory } = world();
    await getProperty(deps, 'accountReader', '1');

    expect(properties.calls).toStrictEqual(['1']);
    expect(directory.calls).toStrictEqual(['accountReader']);
  });
});

describe('getProperty: validation', () => {
  const malformed: [string, string | undefined][] = [
    ['undefined', undefined],
    ['empty', ''],
    ['letters', 'abc'],
    ['digits then a letter', '12a'],
    ['a decimal', '1.5'],
    ['a negative number', '-1'],
    ['a space', ' '],
    ['leading space', ' 1'],
    ['trailing newline', '1\n'],
    ['21 digits', '1'.repeat(21)],
    ['a nested name', '1/2'],
    ['the full resource name', 'properties/1'],
    ['unicode digits', '١٢٣'],
  ];

  it.each(malformed)('%s → 400 invalid_argument badRequest on name, repositories untouched', async (_n, id) => {
    const { deps, properties, directory } = world();
    const err = await thrown(getProperty(deps, 'accountReader', id));

    expect(err.kind).toBe('invalid_argument');
    expect(err.reason).toBe('badRequest');
    expect(err.where).toStrictEqual({ location: 'name', locationType: 'parameter' });
    expect(err.message).toBe("The value for the 'name' field was invalid but must be in format 'properties/123'.");
    expect(properties.calls).toStrictEqual([]);
    expect(directory.calls).toStrictEqual([]);
  });

  it('20 digits is still a well-formed id (then 403 when missing)', async () => {
    const { deps } = world();

    expect(described(await thrown(getProperty(deps, 'accountReader', '9'.repeat(20))))).toStrictEqual(FORBIDDEN);
  });
});
