/**
 * The Reporting API code tables behind the bulk-export ingest (functions/core/reports/ingest/code-tables), checked
 * against /work/shared/reference/reporting-api.md §2 and api-contract.md §A.2.2.
 */
import { describe, expect, it } from 'vitest';
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
  TRAFFIC_SOURCE_DETAIL_TYPES,
  TRAFFIC_SOURCE_TYPES,
} from '../../functions/core/reports/ingest/code-tables';

type Table = Readonly<Record<string, string>>;

const TABLES: [string, Table, string][] = [
  ['TRAFFIC_SOURCE_TYPES', TRAFFIC_SOURCE_TYPES, 'insightTrafficSourceType'],
  ['PLAYBACK_LOCATION_TYPES', PLAYBACK_LOCATION_TYPES, 'insightPlaybackLocationType'],
  ['DEVICE_TYPES', DEVICE_TYPES, 'deviceType'],
  ['OPERATING_SYSTEMS', OPERATING_SYSTEMS, 'operatingSystem'],
  ['SHARING_SERVICES', SHARING_SERVICES, 'sharingService'],
  ['AD_TYPES', AD_TYPES, 'adType'],
  ['AGE_GROUPS', AGE_GROUPS, 'ageGroup'],
  ['GENDERS', GENDERS, 'gender'],
  ['LIVE_OR_ON_DEMAND', LIVE_OR_ON_DEMAND, 'liveOrOnDemand'],
  ['SUBSCRIBED_STATUS', SUBSCRIBED_STATUS, 'subscribedStatus'],
];

describe('Reporting API code tables', () => {
  it.each([
    ['0', 'NO_LINK_OTHER'],
    ['1', 'ADVERTISING'],
    ['3', 'SUBSCRIBER'],
    ['4', 'YT_CHANNEL'],
    ['5', 'YT_SEARCH'],
    ['7', 'RELATED_VIDEO'],
    ['9', 'EXT_URL'],
    ['14', 'PLAYLIST'],
    ['18', 'YT_PLAYLIST_PAGE'],
    ['19', 'CAMPAIGN_CARD'],
    ['20', 'END_SCREEN'],
    ['24', 'SHORTS'],
    ['26', 'HASHTAGS'],
    ['32', 'SHORTS_CONTENT_LINKS'],
  ])('maps traffic source %s to %s', (code, value) => {
    expect(mapCode(TRAFFIC_SOURCE_TYPES, code)).toBe(value);
  });

  it.each([
    ['0', 'WATCH'],
    ['1', 'EMBEDDED'],
    ['2', 'CHANNEL'],
    ['5', 'YT_OTHER'],
    ['7', 'BROWSE'],
    ['8', 'SEARCH'],
    ['10', 'SHORTS_FEED'],
  ])('maps playback location %s to %s', (code, value) => {
    expect(mapCode(PLAYBACK_LOCATION_TYPES, code)).toBe(value);
  });

  it.each([
    ['100', 'UNKNOWN_PLATFORM'],
    ['101', 'DESKTOP'],
    ['102', 'TV'],
    ['103', 'GAME_CONSOLE'],
    ['104', 'MOBILE'],
    ['105', 'TABLET'],
  ])('maps device type %s to %s', (code, value) => {
    expect(mapCode(DEVICE_TYPES, code)).toBe(value);
  });

  it.each([
    ['1', 'OTHER'],
    ['2', 'WINDOWS'],
    ['4', 'ANDROID'],
    ['5', 'IOS'],
    ['9', 'MACINTOSH'],
    ['13', 'LINUX'],
    ['19', 'SMART_TV'],
    ['21', 'CHROMECAST'],
    ['25', 'KAIOS'],
  ])('maps operating system %s to %s', (code, value) => {
    expect(mapCode(OPERATING_SYSTEMS, code)).toBe(value);
  });

  it.each([
    ['0', 'UNKNOWN'],
    ['4', 'REDDIT'],
    ['10', 'FACEBOOK'],
    ['31', 'TWITTER'],
    ['49', 'WHATS_APP'],
    ['51', 'GMAIL'],
    ['55', 'COPY_PASTE'],
    ['59', 'EMBED'],
    ['75', 'TELEGRAM'],
    ['88', 'YOUTUBE_TV'],
  ])('maps sharing service %s to %s', (code, value) => {
    expect(mapCode(SHARING_SERVICES, code)).toBe(value);
  });

  it.each([
    ['1', 'auctionTrueviewInstream'],
    ['2', 'auctionDisplay'],
    ['3', 'auctionInstream'],
    ['5', 'reservedDisplay'],
    ['6', 'reservedInstream'],
    ['13', 'unknown'],
    ['15', 'reservedInstreamSelect'],
    ['19', 'auctionBumperInstream'],
    ['20', 'reservedBumperInstream'],
  ])('maps ad type %s to %s', (code, value) => {
    expect(mapCode(AD_TYPES, code)).toBe(value);
  });

  it('maps every age group, first and last by their odd spellings', () => {
    expect(mapCode(AGE_GROUPS, 'AGE_13_17')).toBe('age13-17');
    expect(mapCode(AGE_GROUPS, 'AGE_35_44')).toBe('age35-44');
    expect(mapCode(AGE_GROUPS, 'AGE_65_')).toBe('age65-');
    expect(Object.keys(AGE_GROUPS)).toHaveLength(7);
  });

  it('maps genders, GENDER_OTHER and USER_SPECIFIED both to user_specified', () => {
    expect(mapWord(GENDERS, 'FEMALE')).toBe('female');
    expect(mapWord(GENDERS, 'male')).toBe('male');
    expect(mapWord(GENDERS, 'GENDER_OTHER')).toBe('user_specified');
    expect(mapWord(GENDERS, 'USER_SPECIFIED')).toBe('user_specified');
  });

  it.each([
    ['live', 'LIVE'],
    ['LIVE', 'LIVE'],
    ['on_demand', 'ON_DEMAND'],
    ['onDemand', 'ON_DEMAND'],
    ['ondemand', 'ON_DEMAND'],
    [' ON_DEMAND ', 'ON_DEMAND'],
  ])('reads live_or_on_demand %j as %s', (raw, value) => {
    expect(mapWord(LIVE_OR_ON_DEMAND, raw)).toBe(value);
  });

  it.each([
    ['subscribed', 'SUBSCRIBED'],
    ['Subscribed', 'SUBSCRIBED'],
    ['unsubscribed', 'UNSUBSCRIBED'],
    ['not_subscribed', 'UNSUBSCRIBED'],
    ['NOT_SUBSCRIBED', 'UNSUBSCRIBED'],
  ])('reads subscribed_status %j as %s', (raw, value) => {
    expect(mapWord(SUBSCRIBED_STATUS, raw)).toBe(value);
  });

  it('rejects words it does not know', () => {
    expect(mapWord(SUBSCRIBED_STATUS, 'unknown')).toBeUndefined();
    expect(mapWord(LIVE_OR_ON_DEMAND, 'on demand')).toBeUndefined();
    expect(mapWord(GENDERS, 'OTHER')).toBeUndefined();
  });

  it('reads a numeric code written as a float, padded or with spaces', () => {
    for (const raw of ['7', '7.0', '7.00', ' 7 ', '07', '\t7.0\r'])
      expect(mapCode(TRAFFIC_SOURCE_TYPES, raw), raw).toBe('RELATED_VIDEO');
    expect(mapCode(DEVICE_TYPES, '104.0')).toBe('MOBILE');
    expect(mapCode(AGE_GROUPS, ' AGE_18_24 ')).toBe('age18-24');
  });

  it.each([
    ['TRAFFIC_SOURCE_TYPES', TRAFFIC_SOURCE_TYPES, '7.5'],
    ['TRAFFIC_SOURCE_TYPES', TRAFFIC_SOURCE_TYPES, ''],
    ['TRAFFIC_SOURCE_TYPES', TRAFFIC_SOURCE_TYPES, '-7'],
    ['TRAFFIC_SOURCE_TYPES', TRAFFIC_SOURCE_TYPES, '2'],
    ['TRAFFIC_SOURCE_TYPES', TRAFFIC_SOURCE_TYPES, '23'],
    ['TRAFFIC_SOURCE_TYPES', TRAFFIC_SOURCE_TYPES, '99'],
    ['TRAFFIC_SOURCE_TYPES', TRAFFIC_SOURCE_TYPES, 'constructor'],
    ['OPERATING_SYSTEMS', OPERATING_SYSTEMS, '26'],
    ['OPERATING_SYSTEMS', OPERATING_SYSTEMS, '31'],
    ['DEVICE_TYPES', DEVICE_TYPES, '106'],
    ['PLAYBACK_LOCATION_TYPES', PLAYBACK_LOCATION_TYPES, '3'],
    ['AGE_GROUPS', AGE_GROUPS, 'age_13_17'],
  ] as [string, Table, string][])('gives undefined for unknown code %s %j', (_name, table, raw) => {
    expect(mapCode(table, raw)).toBeUndefined();
  });

  it.each(TABLES)('maps %s only to values its Analytics dimension accepts', (_name, table, dimension) => {
    const allowed = ANALYTICS_VALUES[dimension];
    expect(allowed, dimension).toBeDefined();
    for (const [code, value] of Object.entries(table)) expect(allowed, `${code} → ${value}`).toContain(value);
  });

  it.each(TABLES.filter(([name]) => !['GENDERS', 'LIVE_OR_ON_DEMAND', 'SUBSCRIBED_STATUS'].includes(name)))(
    'maps distinct codes of %s to distinct values',
    (_name, table) => {
      const values = Object.values(table);
      expect(new Set(values).size).toBe(values.length);
    },
  );

  it('pairs the 67 sharing-service codes one to one with the 67 Analytics names', () => {
    expect(Object.keys(SHARING_SERVICES)).toHaveLength(67);
    expect(new Set(Object.values(SHARING_SERVICES))).toEqual(new Set(ANALYTICS_VALUES.sharingService));
  });

  it('lists the enumerated dimensions of the contract, each without duplicates', () => {
    expect(Object.keys(ANALYTICS_VALUES).sort()).toEqual(
      [
        'insightPlaybackLocationType',
        'liveOrOnDemand',
        'subscribedStatus',
        'youtubeProduct',
        'insightTrafficSourceType',
        'deviceType',
        'operatingSystem',
        'ageGroup',
        'gender',
        'sharingService',
        'audienceType',
        'adType',
        'claimedStatus',
        'uploaderType',
        'creatorContentType',
      ].sort(),
    );
    for (const [dimension, values] of Object.entries(ANALYTICS_VALUES)) {
      expect(new Set(values).size, dimension).toBe(values.length);
    }
  });

  it('keeps the contract values the bulk files never produce', () => {
    expect(ANALYTICS_VALUES.insightTrafficSourceType).toEqual(expect.arrayContaining(['NO_LINK_EMBEDDED', 'PROMOTED']));
    expect(ANALYTICS_VALUES.insightPlaybackLocationType).toEqual(expect.arrayContaining(['EXTERNAL_APP', 'MOBILE']));
    expect(ANALYTICS_VALUES.operatingSystem).toContain('DOCOMO');
    expect(ANALYTICS_VALUES.adType).toEqual(expect.arrayContaining(['auctionTrueviewInslate', 'reservedMasthead']));
    expect(ANALYTICS_VALUES.youtubeProduct).toEqual(['CORE', 'GAMING', 'KIDS', 'UNKNOWN']);
    expect(ANALYTICS_VALUES.uploaderType).toEqual(['self', 'thirdParty']);
  });

  it('allows a traffic-source detail only for the ten contract types', () => {
    expect([...TRAFFIC_SOURCE_DETAIL_TYPES].sort()).toEqual(
      [
        'ADVERTISING',
        'CAMPAIGN_CARD',
        'END_SCREEN',
        'EXT_URL',
        'NOTIFICATION',
        'RELATED_VIDEO',
        'SUBSCRIBER',
        'YT_CHANNEL',
        'YT_OTHER_PAGE',
        'YT_SEARCH',
      ].sort(),
    );
    for (const type of TRAFFIC_SOURCE_DETAIL_TYPES) expect(ANALYTICS_VALUES.insightTrafficSourceType).toContain(type);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(TRAFFIC_SOURCE_TYPES)).toBe(true);
    expect(Object.isFrozen(ANALYTICS_VALUES)).toBe(true);
    expect(Object.isFrozen(ANALYTICS_VALUES.deviceType)).toBe(true);
  });
});
