/**
 * Code tables of the YouTube Reporting API bulk exports (the numeric and word-valued dimension columns), each mapped
 * to the value the YouTube Analytics API v2 uses for the matching dimension, plus the Analytics value lists those
 * dimensions accept as filters. Plain data; the ingest reports unknown codes itself.
 *
 * Sources: /work/shared/reference/reporting-api.md §2.1–2.8 and §10 (code tables, spellings, open points) and
 * /work/shared/reference/api-contract.md §A.2.2 (allowed Analytics values; its full sharingService list is the one
 * it cites, analytix `analytix/reports/data.py` VALID_FILTER_OPTIONS).
 *
 * Each table's `Object.freeze` is marked pure, so a bundle that never reads a table does not carry it (reports.query
 * reads ANALYTICS_VALUES only).
 */

/** `traffic_source_type` → `insightTrafficSourceType` (reporting-api §2.2). */
export const TRAFFIC_SOURCE_TYPES: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  '0': 'NO_LINK_OTHER', // direct or unknown; older Analytics alias UNKNOWN_MOBILE_OR_DIRECT
  '1': 'ADVERTISING',
  '3': 'SUBSCRIBER', // browse features
  '4': 'YT_CHANNEL',
  '5': 'YT_SEARCH',
  '7': 'RELATED_VIDEO', // suggested videos; older Analytics alias YT_RELATED
  '8': 'YT_OTHER_PAGE',
  '9': 'EXT_URL',
  '11': 'ANNOTATION',
  '14': 'PLAYLIST',
  '17': 'NOTIFICATION',
  // Kept distinct at ingest: the Analytics API folds these views into PLAYLIST only since 2023-12-04.
  '18': 'YT_PLAYLIST_PAGE',
  '19': 'CAMPAIGN_CARD', // programming from claimed content (content owner only)
  '20': 'END_SCREEN',
  // 23 (Stories, feature retired) has no known Analytics value and is left out.
  // 24–32 are matched by name, not by a Google statement (reporting-api §10.4); 29 is the weakest guess.
  '24': 'SHORTS',
  '25': 'PRODUCT_PAGE',
  '26': 'HASHTAGS',
  '27': 'SOUND_PAGE',
  '28': 'LIVE_REDIRECT',
  '29': 'PODCASTS',
  '30': 'VIDEO_REMIXES',
  '31': 'IMMERSIVE_LIVE',
  '32': 'SHORTS_CONTENT_LINKS',
});

/** `playback_location_type` → `insightPlaybackLocationType` (reporting-api §2.3). */
export const PLAYBACK_LOCATION_TYPES: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  '0': 'WATCH', // inferred by meaning
  '1': 'EMBEDDED',
  '2': 'CHANNEL',
  '5': 'YT_OTHER', // inferred
  '7': 'BROWSE',
  '8': 'SEARCH',
  '10': 'SHORTS_FEED', // returned by the Analytics API though undocumented there
});

/** `device_type` → `deviceType` (reporting-api §2.4, matched by name). */
export const DEVICE_TYPES: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  '100': 'UNKNOWN_PLATFORM',
  '101': 'DESKTOP',
  '102': 'TV',
  '103': 'GAME_CONSOLE',
  '104': 'MOBILE',
  '105': 'TABLET',
});

/**
 * `operating_system` → `operatingSystem` (reporting-api §2.5, matched by name). Codes 26–31 (Roku, Nintendo Switch,
 * Apple tvOS, Fire OS, ChromeOS, Vidaa) have no known Analytics value and are left out; 8 is unused.
 */
export const OPERATING_SYSTEMS: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  '1': 'OTHER',
  '2': 'WINDOWS',
  '3': 'WINDOWS_MOBILE',
  '4': 'ANDROID',
  '5': 'IOS',
  '6': 'SYMBIAN',
  '7': 'BLACKBERRY',
  '9': 'MACINTOSH',
  '10': 'PLAYSTATION',
  '11': 'BADA',
  '12': 'WEBOS',
  '13': 'LINUX',
  '14': 'HIPTOP',
  '15': 'MEEGO',
  '16': 'WII',
  '17': 'XBOX',
  '18': 'PLAYSTATION_VITA',
  '19': 'SMART_TV',
  '20': 'NINTENDO_3DS',
  '21': 'CHROMECAST',
  '22': 'TIZEN',
  '23': 'FIREFOX',
  '24': 'REALMEDIA',
  '25': 'KAIOS',
});

/**
 * `sharing_service` → `sharingService` (reporting-api §2.6). Google publishes no code→name table, so this is matched
 * by name against the Analytics list; the 67 codes and 67 names pair up one to one.
 */
export const SHARING_SERVICES: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  '0': 'UNKNOWN',
  '1': 'DIGG',
  '4': 'REDDIT',
  '5': 'STUMBLEUPON',
  '6': 'MIXI',
  '7': 'YAHOO', // Yahoo! Japan
  '8': 'GOO',
  '9': 'AMEBA',
  '10': 'FACEBOOK',
  '11': 'MYSPACE',
  '12': 'NUJIJ',
  '18': 'TUENTI',
  '20': 'MENEAME',
  '21': 'WYKOP',
  '22': 'SKYBLOG', // Skyrock
  '25': 'FOTKA',
  '28': 'HI5',
  '31': 'TWITTER',
  '32': 'CYWORLD',
  '34': 'BLOGGER',
  '36': 'VKONTATKE', // VKontakte, spelt as the Analytics value list spells it
  '37': 'RAKUTEN',
  '38': 'LIVEJOURNAL',
  '39': 'ODNOKLASSNIKI',
  '40': 'TUMBLR',
  '42': 'LINKEDIN',
  '43': 'GOOGLEPLUS',
  '44': 'WEIBO',
  '45': 'PINTEREST',
  '46': 'MAIL', // Email
  '47': 'FACEBOOK_MESSENGER',
  '49': 'WHATS_APP',
  '50': 'HANGOUTS',
  '51': 'GMAIL',
  '52': 'KAKAO',
  '53': 'OTHER',
  '55': 'COPY_PASTE', // Copy to Clipboard; reporting-api calls this pairing a guess
  '59': 'EMBED',
  '60': 'TEXT_MESSAGE',
  '61': 'ANDROID_MMS', // Android messaging
  '62': 'VERIZON_MMS',
  '63': 'HTC_MMS',
  '64': 'SONY_CONVERSATIONS',
  '65': 'GO_SMS',
  '66': 'LGE_EMAIL',
  '67': 'LINE',
  '68': 'VIBER',
  '69': 'KIK',
  '70': 'SKYPE',
  '71': 'BBM', // Blackberry Messenger
  '72': 'WECHAT',
  '73': 'KAKAO_STORY',
  '74': 'DROPBOX',
  '75': 'TELEGRAM',
  '76': 'FACEBOOK_PAGES',
  '77': 'GROUPME',
  '78': 'ANDROID_EMAIL',
  '79': 'MOTOROLA_MESSAGING',
  '80': 'NEARBY_SHARE',
  '81': 'NAVER',
  '82': 'IOS_SYSTEM_ACTIVITY_DIALOG',
  '83': 'INBOX', // Google Inbox
  '84': 'ANDROID_MESSENGER',
  '85': 'YOUTUBE_MUSIC',
  '86': 'YOUTUBE_GAMING',
  '87': 'YOUTUBE_KIDS',
  '88': 'YOUTUBE_TV',
});

/** `ad_type` → `adType`: Google's own table gives the "value in query reports" (reporting-api §2.8). */
export const AD_TYPES: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  '1': 'auctionTrueviewInstream',
  '2': 'auctionDisplay',
  '3': 'auctionInstream',
  '5': 'reservedDisplay',
  '6': 'reservedInstream',
  '13': 'unknown',
  '15': 'reservedInstreamSelect',
  '19': 'auctionBumperInstream',
  '20': 'reservedBumperInstream',
});

/** `age_group` → `ageGroup`. */
export const AGE_GROUPS: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  AGE_13_17: 'age13-17',
  AGE_18_24: 'age18-24',
  AGE_25_34: 'age25-34',
  AGE_35_44: 'age35-44',
  AGE_45_54: 'age45-54',
  AGE_55_64: 'age55-64',
  AGE_65_: 'age65-',
});

/** `gender` → `gender`. GENDER_OTHER → user_specified is inferred (reporting-api §10.3). */
export const GENDERS: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  FEMALE: 'female',
  MALE: 'male',
  GENDER_OTHER: 'user_specified',
  USER_SPECIFIED: 'user_specified', // seen in Fivetran sample data
});

/** `live_or_on_demand` → `liveOrOnDemand`; old Google text spells it onDemand, newer sources on_demand (§10.2). */
export const LIVE_OR_ON_DEMAND: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  live: 'LIVE',
  on_demand: 'ON_DEMAND',
  onDemand: 'ON_DEMAND',
});

/**
 * `subscribed_status` → `subscribedStatus`; old Google text says unsubscribed, Fivetran not_subscribed (§10.1).
 * Singer's extra `unknown` has no Analytics value and is left out.
 */
export const SUBSCRIBED_STATUS: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  subscribed: 'SUBSCRIBED',
  unsubscribed: 'UNSUBSCRIBED',
  not_subscribed: 'UNSUBSCRIBED',
});

/**
 * Accepted filter values per Analytics dimension with an enumerated list (api-contract §A.2.2). Extended by the
 * values reporting-api §2.2/§2.3 gives for newer codes (traffic 25–32, playback SHORTS_FEED) so every value the
 * ingest stores can be filtered on. Left out: old aliases (UNKNOWN_MOBILE_OR_DIRECT, YT_RELATED) and the
 * creatorContentType "unspecified" value, whose spelling no source gives.
 */
// biome-ignore format: word lists read best packed
export const ANALYTICS_VALUES: Readonly<Record<string, readonly string[]>> = /* @__PURE__ */ Object.freeze({
  insightPlaybackLocationType: Object.freeze([
    'BROWSE', 'CHANNEL', 'EMBEDDED', 'EXTERNAL_APP', 'MOBILE', 'SEARCH', 'WATCH', 'YT_OTHER', 'SHORTS_FEED',
  ]),
  liveOrOnDemand: Object.freeze(['LIVE', 'ON_DEMAND']),
  subscribedStatus: Object.freeze(['SUBSCRIBED', 'UNSUBSCRIBED']),
  youtubeProduct: Object.freeze(['CORE', 'GAMING', 'KIDS', 'UNKNOWN']),
  insightTrafficSourceType: Object.freeze([
    'ADVERTISING', 'ANNOTATION', 'CAMPAIGN_CARD', 'END_SCREEN', 'EXT_URL', 'NO_LINK_EMBEDDED', 'NO_LINK_OTHER',
    'NOTIFICATION', 'PLAYLIST', 'PROMOTED', 'RELATED_VIDEO', 'SHORTS', 'SUBSCRIBER', 'YT_CHANNEL', 'YT_OTHER_PAGE',
    'YT_PLAYLIST_PAGE', 'YT_SEARCH',
    'PRODUCT_PAGE', 'HASHTAGS', 'SOUND_PAGE', 'LIVE_REDIRECT', 'PODCASTS', 'VIDEO_REMIXES', 'IMMERSIVE_LIVE',
    'SHORTS_CONTENT_LINKS',
  ]),
  deviceType: Object.freeze(['DESKTOP', 'GAME_CONSOLE', 'MOBILE', 'TABLET', 'TV', 'UNKNOWN_PLATFORM']),
  operatingSystem: Object.freeze([
    'ANDROID', 'BADA', 'BLACKBERRY', 'CHROMECAST', 'DOCOMO', 'FIREFOX', 'HIPTOP', 'IOS', 'KAIOS', 'LINUX',
    'MACINTOSH', 'MEEGO', 'NINTENDO_3DS', 'OTHER', 'PLAYSTATION', 'PLAYSTATION_VITA', 'REALMEDIA', 'SMART_TV',
    'SYMBIAN', 'TIZEN', 'WEBOS', 'WII', 'WINDOWS', 'WINDOWS_MOBILE', 'XBOX',
  ]),
  ageGroup: Object.freeze(['age13-17', 'age18-24', 'age25-34', 'age35-44', 'age45-54', 'age55-64', 'age65-']),
  gender: Object.freeze(['female', 'male', 'user_specified']),
  sharingService: Object.freeze([
    'AMEBA', 'ANDROID_EMAIL', 'ANDROID_MESSENGER', 'ANDROID_MMS', 'BBM', 'BLOGGER', 'COPY_PASTE', 'CYWORLD', 'DIGG',
    'DROPBOX', 'EMBED', 'MAIL', 'FACEBOOK', 'FACEBOOK_MESSENGER', 'FACEBOOK_PAGES', 'FOTKA', 'GMAIL', 'GOO',
    'GOOGLEPLUS', 'GO_SMS', 'GROUPME', 'HANGOUTS', 'HI5', 'HTC_MMS', 'INBOX', 'IOS_SYSTEM_ACTIVITY_DIALOG',
    'KAKAO_STORY', 'KAKAO', 'KIK', 'LGE_EMAIL', 'LINE', 'LINKEDIN', 'LIVEJOURNAL', 'MENEAME', 'MIXI',
    'MOTOROLA_MESSAGING', 'MYSPACE', 'NAVER', 'NEARBY_SHARE', 'NUJIJ', 'ODNOKLASSNIKI', 'OTHER', 'PINTEREST',
    'RAKUTEN', 'REDDIT', 'SKYPE', 'SKYBLOG', 'SONY_CONVERSATIONS', 'STUMBLEUPON', 'TELEGRAM', 'TEXT_MESSAGE',
    'TUENTI', 'TUMBLR', 'TWITTER', 'UNKNOWN', 'VERIZON_MMS', 'VIBER', 'VKONTATKE', 'WECHAT', 'WEIBO', 'WHATS_APP',
    'WYKOP', 'YAHOO', 'YOUTUBE_GAMING', 'YOUTUBE_KIDS', 'YOUTUBE_MUSIC', 'YOUTUBE_TV',
  ]),
  audienceType: Object.freeze(['ORGANIC', 'AD_INSTREAM', 'AD_INDISPLAY']),
  adType: Object.freeze([
    'auctionBumperInstream', 'auctionDisplay', 'auctionInstream', 'auctionTrueviewInslate', 'auctionTrueviewInstream',
    'auctionUnknown', 'reservedBumperInstream', 'reservedClickToPlay', 'reservedDisplay', 'reservedInstream',
    'reservedInstreamSelect', 'reservedMasthead', 'reservedUnknown', 'unknown',
  ]),
  claimedStatus: Object.freeze(['claimed']),
  uploaderType: Object.freeze(['self', 'thirdParty']),
  creatorContentType: Object.freeze(['SHORTS', 'VIDEO_ON_DEMAND', 'LIVE_STREAM', 'STORY']),
});

/** insightTrafficSourceType values under which an `insightTrafficSourceDetail` dimension is allowed (§A.2.2). */
// biome-ignore format: word list
export const TRAFFIC_SOURCE_DETAIL_TYPES: readonly string[] = /* @__PURE__ */ Object.freeze([
  'ADVERTISING', 'CAMPAIGN_CARD', 'END_SCREEN', 'EXT_URL', 'NOTIFICATION', 'RELATED_VIDEO', 'SUBSCRIBER', 'YT_CHANNEL',
  'YT_OTHER_PAGE', 'YT_SEARCH',
]);

// Some pipelines turn code columns into floats, so `7.0` (and `07`) must read as `7`.
const INTEGER_CODE = /^(\d+)(?:\.0+)?$/;

/** The Analytics value of a code column cell, or undefined for an unknown code (the caller reports it). */
export function mapCode(table: Readonly<Record<string, string>>, raw: string): string | undefined {
  const text = raw.trim();
  const integer = INTEGER_CODE.exec(text);
  const key = integer ? String(Number(integer[1])) : text;
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

const lowerCased = new WeakMap<object, ReadonlyMap<string, string>>();

/** Case-insensitive lookup for the word-valued columns (live/on_demand, subscribed, gender, age group). */
export function mapWord(table: Readonly<Record<string, string>>, raw: string): string | undefined {
  let index = lowerCased.get(table);
  if (!index) {
    index = new Map(Object.entries(table).map(([word, value]) => [word.toLowerCase(), value]));
    lowerCased.set(table, index);
  }
  return index.get(raw.trim().toLowerCase());
}
