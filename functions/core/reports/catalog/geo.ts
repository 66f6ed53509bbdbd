/**
 * Geographic regions for the `continent` and `subContinent` filters of reports.query, whose values are UN M.49
 * region codes (continent: 002, 019, 142, 150, 009; sub-continent: the sub-regions, with Sub-Saharan Africa and
 * Latin America split into their intermediate regions). Maps ISO 3166-1 alpha-2 country codes to those regions.
 *
 * Source: UN M.49 "Standard country or area codes for statistical use" country grouping
 * (https://unstats.un.org/unsd/methodology/m49/). TW, which M.49 does not list separately, is placed in Eastern Asia;
 * AQ (Antarctica) has no region and XK is not an ISO 3166-1 code.
 */
export const CONTINENTS = ['002', '019', '142', '150', '009'] as const;

export const SUB_CONTINENTS = [
  '014',
  '017',
  '015',
  '018',
  '011',
  '029',
  '013',
  '021',
  '005',
  '143',
  '030',
  '034',
  '035',
  '145',
  '151',
  '154',
  '039',
  '155',
  '053',
  '054',
  '057',
  '061',
] as const;

export type Continent = (typeof CONTINENTS)[number];
export type SubContinent = (typeof SUB_CONTINENTS)[number];

export const SUB_CONTINENT_OF_CONTINENT: Readonly<Record<SubContinent, Continent>> = {
  '014': '002',
  '017': '002',
  '015': '002',
  '018': '002',
  '011': '002',
  '029': '019',
  '013': '019',
  '021': '019',
  '005': '019',
  '143': '142',
  '030': '142',
  '034': '142',
  '035': '142',
  '145': '142',
  '151': '150',
  '154': '150',
  '039': '150',
  '155': '150',
  '053': '009',
  '054': '009',
  '057': '009',
  '061': '009',
};

const BY_SUB_CONTINENT: Readonly<Record<SubContinent, string>> = {
  // Eastern Africa
  '014': 'IO BI KM DJ ER ET TF KE MG MW MU YT MZ RE RW SC SO SS UG TZ ZM ZW',
  // Middle Africa
  '017': 'AO CM CF TD CG CD GQ GA ST',
  // Northern Africa
  '015': 'DZ EG LY MA SD TN EH',
  // Southern Africa
  '018': 'BW SZ LS NA ZA',
  // Western Africa
  '011': 'BJ BF CV CI GM GH GN GW LR ML MR NE NG SH SN SL TG',
  // Caribbean
  '029': 'AI AG AW BS BB BQ VG KY CU CW DM DO GD GP HT JM MQ MS PR BL KN LC MF VC SX TT TC VI',
  // Central America
  '013': 'BZ CR SV GT HN MX NI PA',
  // Northern America
  '021': 'BM CA GL PM US',
  // South America
  '005': 'AR BO BV BR CL CO EC FK GF GY PY PE GS SR UY VE',
  // Central Asia
  '143': 'KZ KG TJ TM UZ',
  // Eastern Asia
  '030': 'CN HK MO KP JP MN KR TW',
  // Southern Asia
  '034': 'AF BD BT IN IR MV NP PK LK',
  // South-eastern Asia
  '035': 'BN KH ID LA MY MM PH SG TH TL VN',
  // Western Asia
  '145': 'AM AZ BH CY GE IQ IL JO KW LB OM QA SA PS SY TR AE YE',
  // Eastern Europe
  '151': 'BY BG CZ HU PL MD RO RU SK UA',
  // Northern Europe
  '154': 'AX DK EE FO FI GG IS IE IM JE LV LT NO SJ SE GB',
  // Southern Europe
  '039': 'AL AD BA HR GI GR VA IT MT ME MK PT SM RS SI ES',
  // Western Europe
  '155': 'AT BE FR DE LI LU MC NL CH',
  // Australia and New Zealand
  '053': 'AU CX CC HM NZ NF',
  // Melanesia
  '054': 'FJ NC PG SB VU',
  // Micronesia
  '057': 'GU KI MH FM NR MP PW UM',
  // Polynesia
  '061': 'AS CK PF NU PN WS TK TO TV WF',
};

export const COUNTRY_REGIONS: Readonly<Record<string, { continent: Continent; subContinent: SubContinent }>> =
  countryRegions();

function countryRegions(): Record<string, { continent: Continent; subContinent: SubContinent }> {
  const regions: Record<string, { continent: Continent; subContinent: SubContinent }> = {};
  for (const subContinent of SUB_CONTINENTS) {
    // One frozen region per sub-continent, shared by its countries (built at every cold start: 22 objects, not 250).
    const region = Object.freeze({ continent: SUB_CONTINENT_OF_CONTINENT[subContinent], subContinent });
    for (const code of BY_SUB_CONTINENT[subContinent].split(' ')) regions[code] = region;
  }
  return Object.freeze(regions);
}

/** The country codes in the given continent and/or sub-continent; empty for an unknown code. */
export function countriesIn(filter: { continent?: string; subContinent?: string }): ReadonlySet<string> {
  const out = new Set<string>();
  for (const [code, region] of Object.entries(COUNTRY_REGIONS)) {
    if (filter.continent !== undefined && region.continent !== filter.continent) continue;
    if (filter.subContinent !== undefined && region.subContinent !== filter.subContinent) continue;
    out.add(code);
  }
  return out;
}

/** ISO 3166-1 alpha-2 codes accepted as countries: every mapped code, plus ZZ (unknown) and AQ (Antarctica). */
export const isCountryCode = (s: string): boolean => Object.hasOwn(COUNTRY_REGIONS, s) || s === 'ZZ' || s === 'AQ';
