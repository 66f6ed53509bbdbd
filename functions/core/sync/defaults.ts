/** Google's endpoints, the defaults of REPORTING_API_ROOT and OAUTH_TOKEN_URL (a module of its own: no imports). */
export const DEFAULT_REPORTING_API_ROOT = 'https://youtubereporting.googleapis.com/';
export const DEFAULT_OAUTH_TOKEN_URL = 'https://oauth2.googleapis.com/token';
