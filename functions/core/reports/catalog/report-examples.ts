/**
 * An example query for every report of the catalog (catalog.ts), after `ids`, `startDate` and `endDate`: the README
 * shows them (catalog-table.ts), the tests run them. `{video}`, `{playlist}` and `{channel}` stand for ids of the
 * caller's. Kept apart from the catalog's rules so the functions that match requests do not carry them.
 */
import type { ReportDef } from './catalog';

/** By channel report id; a content-owner report's example is derived from its channel report's (exampleQuery). */
// biome-ignore format: one example a line reads best
const EXAMPLES: Readonly<Record<string, string>> = {
  1: 'metrics=views,likes,subscribersGained',
  2: 'metrics=views,estimatedMinutesWatched&filters=province==US-CA',
  3: 'dimensions=day&metrics=views,estimatedMinutesWatched&sort=day',
  4: 'dimensions=day&metrics=views&filters=province==US-TX&sort=day',
  5: 'dimensions=country&metrics=views,averageViewDuration&sort=-views',
  6: 'dimensions=province&metrics=views,averageViewPercentage&filters=country==US&sort=-views',
  7: 'dimensions=city&metrics=views,estimatedMinutesWatched&sort=-views&maxResults=25',
  8: 'dimensions=subscribedStatus&metrics=views,likes',
  9: 'dimensions=subscribedStatus&metrics=views,annotationClickThroughRate&filters=province==US-NY',
  10: 'dimensions=liveOrOnDemand,month&metrics=views,averageViewDuration',
  11: 'dimensions=youtubeProduct,day&metrics=views,averageViewPercentage',
  12: 'dimensions=country,liveOrOnDemand&metrics=views,estimatedMinutesWatched&sort=-views',
  13: 'dimensions=country,subscribedStatus&metrics=views,averageViewPercentage',
  14: 'dimensions=province,liveOrOnDemand&metrics=views&filters=country==US',
  15: 'dimensions=province,youtubeProduct&metrics=averageViewPercentage&filters=country==US',
  16: 'dimensions=insightPlaybackLocationType&metrics=views,estimatedMinutesWatched',
  17: 'dimensions=insightPlaybackLocationDetail&metrics=views&filters=insightPlaybackLocationType==EMBEDDED&sort=-views&maxResults=25',
  18: 'dimensions=insightTrafficSourceType,day&metrics=views',
  19: 'dimensions=insightTrafficSourceDetail&metrics=views,estimatedMinutesWatched&filters=insightTrafficSourceType==YT_SEARCH&sort=-estimatedMinutesWatched&maxResults=10',
  20: 'dimensions=deviceType&metrics=views,estimatedMinutesWatched',
  21: 'dimensions=operatingSystem&metrics=views&filters=deviceType==MOBILE',
  22: 'dimensions=deviceType,operatingSystem&metrics=views',
  23: 'dimensions=ageGroup,gender&metrics=viewerPercentage',
  24: 'dimensions=sharingService&metrics=shares&sort=-shares',
  25: 'dimensions=elapsedVideoTimeRatio&metrics=audienceWatchRatio,relativeRetentionPerformance&filters=video=={video}',
  26: 'dimensions=video&metrics=views,likes&sort=-views&maxResults=10',
  27: 'dimensions=video&metrics=views,estimatedMinutesWatched&filters=province==US-CA&sort=-estimatedMinutesWatched&maxResults=10',
  28: 'dimensions=video&metrics=views,likes&filters=subscribedStatus==SUBSCRIBED&sort=-views&maxResults=10',
  29: 'dimensions=video&metrics=views,averageViewPercentage&filters=youtubeProduct==CORE&sort=-views&maxResults=10',
  30: 'dimensions=video&metrics=views&filters=liveOrOnDemand==LIVE&sort=-views&maxResults=10',
  P1: 'metrics=playlistViews,playlistStarts,averageTimeInPlaylist&filters=playlist=={playlist}',
  P2: 'dimensions=day&metrics=playlistViews&filters=playlist=={playlist}&sort=day',
  P3: 'dimensions=country&metrics=views,estimatedMinutesWatched&filters=playlist=={playlist}',
  P4: 'dimensions=province&metrics=views&filters=country==US;playlist=={playlist}',
  P5: 'dimensions=insightPlaybackLocationType&metrics=playlistStarts&filters=playlist=={playlist}',
  P6: 'dimensions=insightPlaybackLocationDetail&metrics=playlistViews&filters=insightPlaybackLocationType==EMBEDDED;playlist=={playlist}&sort=-playlistViews&maxResults=25',
  P7: 'dimensions=insightTrafficSourceType&metrics=playlistViews,playlistSaves&filters=playlist=={playlist}',
  P8: 'dimensions=insightTrafficSourceDetail&metrics=playlistViews&filters=insightTrafficSourceType==YT_SEARCH;playlist=={playlist}&sort=-playlistViews&maxResults=10',
  P9: 'dimensions=deviceType,operatingSystem&metrics=playlistViews&filters=playlist=={playlist}',
  P10: 'dimensions=ageGroup&metrics=viewerPercentage&filters=playlist=={playlist}',
  P11: 'dimensions=playlist&metrics=playlistViews,playlistStarts&sort=-playlistViews&maxResults=10',
  AD: 'dimensions=adType&metrics=grossRevenue,adImpressions,cpm&sort=-grossRevenue',
  R1: 'dimensions=day&metrics=videoThumbnailImpressions,videoThumbnailImpressionsClickRate&sort=day',
  R2: 'dimensions=video&metrics=videoThumbnailImpressions,videoThumbnailImpressionsClickRate&sort=-videoThumbnailImpressions&maxResults=10',
};

/** A filter clause added to an example query. */
function withFilter(example: string, clause: string): string {
  const parts = example.split('&');
  const i = parts.findIndex((p) => p.startsWith('filters='));
  if (i < 0) return [...parts, `filters=${clause}`].join('&');
  parts[i] = `${parts[i]};${clause}`;
  return parts.join('&');
}

/**
 * The example query of a report, with its placeholders. A content-owner report's is its channel report's with
 * `uploaderType==self` (video and ad reports) or, for playlist reports that name no entity yet, `channel=={channel}`.
 */
export function exampleQuery(def: ReportDef): string {
  const example = EXAMPLES[def.id.replace(/^CO-/, '')];
  if (example === undefined) throw new Error(`report ${def.id} has no example query`);
  if (def.owner === 'channel') return example;
  if (def.kind !== 'playlist') return withFilter(example, 'uploaderType==self');
  const entities = def.entityFilter?.anyOf ?? [];
  return entities.some((f) => example.includes(`${f}==`)) ? example : withFilter(example, 'channel=={channel}');
}
