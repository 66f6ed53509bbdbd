/** The Reporting API client the sync runs on, from the environment (the worker Lambda and the operator commands). */
import type { OAuthCredentials } from '../core/sync/connection';
import type { ConnectedOwner } from '../core/sync/owner';
import { DEFAULT_SYNC_RETRY, type ReportingApi, reportingApi } from '../core/sync/reporting-api';
import * as env from './env';

export const reportingApiFromEnv = (credentials: OAuthCredentials, owner: ConnectedOwner): ReportingApi => {
  const base = env.syncRetryBaseMs();
  return reportingApi({
    root: env.reportingApiRoot(),
    tokenUrl: env.oauthTokenUrl(),
    credentials,
    owner,
    retry: base === undefined ? DEFAULT_SYNC_RETRY : { ...DEFAULT_SYNC_RETRY, baseDelayMs: base },
  });
};
