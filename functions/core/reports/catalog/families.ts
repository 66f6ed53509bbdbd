/**
 * How the ingest reads a report family's files: the families of family-shapes.ts with, for each dimension column,
 * the parser of its cells (code tables, value lists, formats) and what a malformed cell should have been; and the
 * recognition of a file's family and version from its header. The ingest, the import command and the tests use
 * these; the functions that only read facts use family-shapes.ts and carry none of it.
 */
import {
  AD_TYPES,
  AGE_GROUPS,
  ANALYTICS_VALUES,
  DEVICE_TYPES,
  GENDERS,
  LIVE_OR_ON_DEMAND,
  mapCode,
  mapWord,
  OPERATING_SYSTEMS,
  PLAYBACK_LOCATION_TYPES,
  SHARING_SERVICES,
  SUBSCRIBED_STATUS,
  TRAFFIC_SOURCE_TYPES,
} from '../ingest/code-tables';
import { COLUMNS, type FamilyColumn, type FamilyOwner, type FamilyShape, FAMILIES as SHAPES } from './family-shapes';

export type { FamilyKind, FamilyOwner } from './family-shapes';
export { familyDims, familyMeasures, isExtension } from './family-shapes';

/** Parses one cell into the stored dimension value; undefined means malformed (the file is rejected). */
export type CellParser = (raw: string) => string | undefined;

export interface DimensionColumn extends FamilyColumn {
  readonly parse: CellParser;
  /** What a malformed cell should have been, for the error message. */
  readonly expected: string;
}

export interface FamilyDef extends FamilyShape {
  readonly columns: readonly DimensionColumn[];
}

const text: CellParser = (raw) => raw.trim();
const nonEmpty: CellParser = (raw) => raw.trim() || undefined;
/**
 * A numeric code column. Google adds codes before any table names them (operating systems 26–31, Stories traffic):
 * a well-formed code we cannot name goes to the dimension's catch-all value rather than rejecting a real export.
 */
const codeOf =
  (table: Readonly<Record<string, string>>, catchAll: string): CellParser =>
  (raw) =>
    mapCode(table, raw) ?? (/^\d+(\.0+)?$/.test(raw.trim()) ? catchAll : undefined);
const wordOf =
  (table: Readonly<Record<string, string>>): CellParser =>
  (raw) =>
    mapWord(table, raw);
const country: CellParser = (raw) => {
  const v = raw.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(v) ? v : undefined;
};
const province: CellParser = (raw) => {
  const v = raw.trim().toUpperCase();
  return /^US-[A-Z]{2}$/.test(v) ? v : undefined;
};
const claimed: CellParser = (raw) => {
  const v = raw.trim().toLowerCase();
  return v === '' || v === 'claimed' ? v : undefined;
};
const uploader: CellParser = (raw) => {
  const v = raw.trim();
  return v === 'self' || v === 'thirdParty' ? v : v.toLowerCase() === 'thirdparty' ? 'thirdParty' : undefined;
};

const oneOf =
  (values: readonly string[]): CellParser =>
  (raw) => {
    const v = raw.trim();
    return values.find((x) => x.toLowerCase() === v.toLowerCase());
  };
const elapsedRatio: CellParser = (raw) => {
  const v = Number(raw.trim());
  // 0.01 … 1.0 in steps of 0.01, written the way the Analytics API writes them.
  if (raw.trim() === '' || !Number.isFinite(v) || v <= 0 || v > 1) return undefined;
  const hundredths = Math.round(v * 100);
  return Math.abs(v * 100 - hundredths) < 1e-6 ? String(hundredths / 100) : undefined;
};

/** Each column's parser and what a malformed cell should have been. */
const PARSERS: Readonly<Record<keyof typeof COLUMNS, readonly [CellParser, string]>> = {
  channel: [nonEmpty, 'a channel id'],
  video: [text, 'a video id or empty'],
  playlist: [nonEmpty, 'a playlist id'],
  asset: [nonEmpty, 'an asset id'],
  claimed: [claimed, 'claimed or empty'],
  uploader: [uploader, 'self or thirdParty'],
  live: [wordOf(LIVE_OR_ON_DEMAND), 'live or on_demand'],
  subscribed: [wordOf(SUBSCRIBED_STATUS), 'subscribed or not_subscribed'],
  country: [country, 'a country code'],
  province: [province, 'a US-XX province code'],
  provinceOrEmpty: [(raw) => (raw.trim() === '' ? '' : province(raw)), 'a US-XX province code or empty'],
  city: [nonEmpty, 'a city id'],
  elapsed: [elapsedRatio, 'a ratio 0.01 … 1.0 in steps of 0.01'],
  audienceType: [oneOf(ANALYTICS_VALUES.audienceType ?? []), 'ORGANIC, AD_INSTREAM or AD_INDISPLAY'],
  creatorType: [
    oneOf([...(ANALYTICS_VALUES.creatorContentType ?? []), 'UNSPECIFIED']),
    'SHORTS, VIDEO_ON_DEMAND, LIVE_STREAM or STORY',
  ],
  product: [oneOf(ANALYTICS_VALUES.youtubeProduct ?? []), 'CORE, GAMING, KIDS or UNKNOWN'],
  playbackType: [codeOf(PLAYBACK_LOCATION_TYPES, 'YT_OTHER'), 'a playback location code'],
  playbackDetail: [text, 'text'],
  trafficType: [codeOf(TRAFFIC_SOURCE_TYPES, 'NO_LINK_OTHER'), 'a traffic source code'],
  trafficDetail: [text, 'text'],
  device: [codeOf(DEVICE_TYPES, 'UNKNOWN_PLATFORM'), 'a device type code'],
  os: [codeOf(OPERATING_SYSTEMS, 'OTHER'), 'an operating system code'],
  age: [wordOf(AGE_GROUPS), 'an age group like AGE_18_24'],
  gender: [wordOf(GENDERS), 'FEMALE, MALE or GENDER_OTHER'],
  sharing: [codeOf(SHARING_SERVICES, 'OTHER'), 'a sharing service code'],
  adType: [codeOf(AD_TYPES, 'unknown'), 'an ad type code'],
  subtitleLanguage: [text, 'text'],
  subtitleAuto: [text, 'text'],
  annotationType: [text, 'a code'],
  annotationId: [text, 'an id'],
  cardType: [text, 'a code'],
  cardId: [text, 'an id'],
  endScreenType: [text, 'a code'],
  endScreenId: [text, 'an id'],
};

const NAME_OF_COLUMN = new Map<FamilyColumn, keyof typeof COLUMNS>(
  Object.entries(COLUMNS).map(([name, c]) => [c, name as keyof typeof COLUMNS]),
);

function withParser(c: FamilyColumn): DimensionColumn {
  const name = NAME_OF_COLUMN.get(c);
  if (name === undefined) throw new Error(`column ${c.column} is not one of COLUMNS`);
  const [parse, expected] = PARSERS[name];
  return { ...c, parse, expected };
}

export const FAMILIES: readonly FamilyDef[] = SHAPES.map((f) => ({ ...f, columns: f.columns.map(withParser) }));
export const FAMILY_BY_CODE: ReadonlyMap<string, FamilyDef> = new Map(FAMILIES.map((f) => [f.code, f]));
export const CHANNEL_BASIC = FAMILY_BY_CODE.get('CB') as FamilyDef;

const DIMENSION_COLUMN_NAMES = new Set(
  Object.values(COLUMNS)
    .filter((c) => !('missing' in c))
    .map((c) => c.column),
);

/** The dimension columns of a header (besides date; channel_id only for content-owner layouts). */
function headerSignature(header: readonly string[], owner: FamilyOwner): string {
  return header
    .filter((c) => DIMENSION_COLUMN_NAMES.has(c) && (owner === 'contentOwner' || c !== 'channel_id'))
    .sort()
    .join(',');
}

const signatures = new Map<string, FamilyDef>();
for (const f of FAMILIES) {
  const key = `${f.owner}|${f.columns
    .filter((c) => c.missing === undefined)
    .map((c) => c.column)
    .sort()
    .join(',')}`;
  // The estimated-revenue layouts of videos and assets differ by asset_id, so every signature is unique.
  if (signatures.has(key)) throw new Error(`two families share the columns ${key}`);
  signatures.set(key, f);
}

/**
 * The family and report type id a header describes. `typeHint` (a report type id from the file's folder or from
 * `--type`) decides where layouts coincide: content-owner playlist files have the channel playlist columns.
 * Otherwise channel layouts win, then content-owner ones (told by `claimed_status`/`uploader_type`, or by their
 * revenue and ad-rate metric columns). The version is the newest whose marker columns are all present.
 */
export function detectFamily(
  header: readonly string[],
  typeHint?: string,
): { family: FamilyDef; reportType: string } | undefined {
  if (!header.includes('date') || !header.includes('channel_id')) return undefined;
  const hinted = typeHint === undefined ? undefined : familyOfReportType(typeHint);
  const candidates = hinted ? [hinted.owner] : (['channel', 'contentOwner'] as const);
  for (const owner of candidates) {
    const family = signatures.get(`${owner}|${headerSignature(header, owner)}`);
    if (!family || (hinted && family !== hinted)) continue;
    if (!Object.keys(family.measures).some((m) => header.includes(m))) continue;
    return { family, reportType: hinted ? (typeHint as string) : `${family.type}_${versionOf(family, header)}` };
  }
  return undefined;
}

function versionOf(family: FamilyDef, header: readonly string[]): string {
  for (let i = family.versions.length - 1; i > 0; i--) {
    const v = family.versions[i] as string;
    const marks = family.markers?.[v];
    if (!marks || marks.every((m) => header.includes(m))) return v;
  }
  return family.versions[0] as string;
}

/** The family of a report type id such as `channel_traffic_source_a3`, if it is a known version. */
export function familyOfReportType(reportType: string): FamilyDef | undefined {
  const m = /^(.+)_([ax]\d+)$/.exec(reportType);
  if (!m) return undefined;
  const family = FAMILIES.find((f) => f.type === m[1]);
  return family?.versions.includes(m[2] as string) ? family : undefined;
}
