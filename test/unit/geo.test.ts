/**
 * The UN M.49 region data behind the continent / subContinent filters of reports.query (functions/core/reports/catalog/geo).
 */
import { describe, expect, it } from 'vitest';
import {
  CONTINENTS,
  COUNTRY_REGIONS,
  countriesIn,
  isCountryCode,
  SUB_CONTINENT_OF_CONTINENT,
  SUB_CONTINENTS,
} from '../../functions/core/reports/catalog/geo';

const codes = Object.keys(COUNTRY_REGIONS);

describe('geo regions', () => {
  it('gives every sub-continent at least one country', () => {
    for (const sub of SUB_CONTINENTS) expect(countriesIn({ subContinent: sub }).size, sub).toBeGreaterThan(0);
  });

  it('gives every continent at least one sub-continent', () => {
    const used = new Set(Object.values(SUB_CONTINENT_OF_CONTINENT));
    for (const continent of CONTINENTS) expect(used.has(continent), continent).toBe(true);
  });

  it('lists no country twice', () => {
    const total = SUB_CONTINENTS.reduce((n, sub) => n + countriesIn({ subContinent: sub }).size, 0);
    expect(total).toBe(codes.length);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('maps every country to the continent of its sub-continent', () => {
    for (const [code, region] of Object.entries(COUNTRY_REGIONS)) {
      expect(region.continent, code).toBe(SUB_CONTINENT_OF_CONTINENT[region.subContinent]);
      expect(CONTINENTS, code).toContain(region.continent);
      expect(SUB_CONTINENTS, code).toContain(region.subContinent);
    }
  });

  it.each([
    ['US', '021', '019'],
    ['MX', '013', '019'],
    ['BR', '005', '019'],
    ['DE', '155', '150'],
    ['GB', '154', '150'],
    ['IT', '039', '150'],
    ['RU', '151', '150'],
    ['CN', '030', '142'],
    ['IN', '034', '142'],
    ['JP', '030', '142'],
    ['ID', '035', '142'],
    ['TR', '145', '142'],
    ['EG', '015', '002'],
    ['NG', '011', '002'],
    ['ZA', '018', '002'],
    ['KE', '014', '002'],
    ['CD', '017', '002'],
    ['AU', '053', '009'],
    ['FJ', '054', '009'],
    ['GU', '057', '009'],
    ['WS', '061', '009'],
  ])('places %s in sub-continent %s of continent %s', (code, subContinent, continent) => {
    expect(COUNTRY_REGIONS[code]).toEqual({ continent, subContinent });
  });

  it('filters by continent and sub-continent', () => {
    const europe = countriesIn({ continent: '150' });
    expect(europe.has('FR')).toBe(true);
    expect(europe.has('US')).toBe(false);
    expect(countriesIn({ continent: '019', subContinent: '021' })).toEqual(new Set(['BM', 'CA', 'GL', 'PM', 'US']));
    expect(countriesIn({ continent: '150', subContinent: '021' }).size).toBe(0);
  });

  it('returns an empty set for an unknown region code', () => {
    expect(countriesIn({ subContinent: '999' }).size).toBe(0);
    expect(countriesIn({ continent: '999' }).size).toBe(0);
  });

  it('covers the ISO 3166-1 countries with a region', () => {
    expect(codes.length).toBeGreaterThanOrEqual(240);
    expect(codes.length).toBeLessThanOrEqual(252);
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
    expect(codes).not.toContain('AQ');
    expect(codes).not.toContain('XK');
  });

  it('accepts mapped codes plus ZZ and AQ as country codes', () => {
    for (const code of codes) expect(isCountryCode(code), code).toBe(true);
    expect(isCountryCode('ZZ')).toBe(true);
    expect(isCountryCode('AQ')).toBe(true);
    for (const bad of ['XK', 'us', 'USA', '', 'toString', '__proto__']) expect(isCountryCode(bad), bad).toBe(false);
  });
});
