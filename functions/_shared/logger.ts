/** One structured logger per container (Powertools). Never log tokens or the Authorization header. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'analytics-api' });
