/** A connected owner as stored (access patterns S1, S2), and the sync state other commands show. */
import type { ConnectedOwner } from './owner';

/** What one sync run of an owner did (the line `npm run sync` prints). */
export interface RunSummary {
  readonly at: string;
  /** Reports listed that were new to the sync (created after the checkpoint, or loaded late). */
  readonly found: number;
  readonly loaded: number;
  /** Older reports of a day already loaded from a newer one (restatements), never loaded. */
  readonly skipped: number;
  /** Reports that failed to download or were rejected by the ingest; they are tried again next run. */
  readonly failed: number;
  readonly jobsCreated: number;
  /** Up to 20 skipped reports: which, and why. */
  readonly skippedReports?: readonly SkippedReport[];
}

export interface SkippedReport {
  readonly reportId: string;
  readonly reportType: string;
  readonly day: string;
  readonly reason: string;
}

export interface SyncError {
  readonly at: string;
  readonly message: string;
}

/** The sync state of one connected owner (readSyncStates, `connect --list`, ingest-status). */
export interface SyncState {
  readonly owner: ConnectedOwner;
  readonly connectedAt: string;
  /** When a run last finished without a failure. */
  readonly lastSuccess?: string;
  /** The createTime up to which every report has been handled (the next run lists reports created after it). */
  readonly checkpoint?: string;
  /** The last run's failure, cleared by a run without one. */
  readonly lastError?: SyncError;
  /** The refresh token was refused (`invalid_grant`): run `connect` again with a new one. */
  readonly needsReconsent: boolean;
  readonly lastRun?: RunSummary;
}

export interface Connection extends SyncState {
  /** Where the OAuth credentials are: a Secrets Manager secret (deployed) or a local-table secret, by name. */
  readonly secretName: string;
}

/** The OAuth client and refresh token of a Google account that can read the owner's reports. Never printed. */
export interface OAuthCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly refreshToken: string;
}

/** Where credentials are kept: Secrets Manager in the cloud, the local table on a laptop. */
export interface CredentialStore {
  /** Creates or replaces the secret `name`. */
  save(name: string, credentials: OAuthCredentials): Promise<void>;
  /** The credentials, or undefined when the secret does not exist. */
  read(name: string): Promise<OAuthCredentials | undefined>;
  /** Removes the secret (no error when it does not exist). */
  remove(name: string): Promise<void>;
}

/** Parses a stored secret; a damaged one is an error naming the secret, never echoing its content. */
export function parseCredentials(name: string, text: string | undefined): OAuthCredentials {
  let value: Partial<OAuthCredentials> | undefined;
  try {
    value = text === undefined ? undefined : (JSON.parse(text) as Partial<OAuthCredentials>);
  } catch {
    value = undefined;
  }
  const ok = (v: unknown): v is string => typeof v === 'string' && v !== '';
  if (!value || !ok(value.clientId) || !ok(value.clientSecret) || !ok(value.refreshToken)) {
    throw new Error(`the credentials secret ${name} is not a JSON object with clientId, clientSecret and refreshToken`);
  }
  return { clientId: value.clientId, clientSecret: value.clientSecret, refreshToken: value.refreshToken };
}

export const credentialsText = (c: OAuthCredentials) =>
  JSON.stringify({ clientId: c.clientId, clientSecret: c.clientSecret, refreshToken: c.refreshToken });
