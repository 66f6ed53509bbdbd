/**
 * One structured logger per container: one JSON line per call, in the Powertools log format (`level`, `message`,
 * `timestamp`, `service`, `cold_start`, `function_*`, `xray_trace_id`, then the keys of the request and of the call),
 * so Logs Insights queries written for Powertools keep working. Written here rather than taken from Powertools Logger,
 * which put 20 KB and its set-up into every function's cold start for the five calls used (bench/cold-start.ts).
 * Never log tokens or the Authorization header.
 */
import type { Context } from 'aws-lambda';

const THRESHOLDS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = keyof typeof THRESHOLDS;

const levelOf = (value: string | undefined): Level | undefined => {
  const v = value?.toUpperCase();
  return v !== undefined && Object.hasOwn(THRESHOLDS, v) ? (v as Level) : undefined;
};

/** POWERTOOLS_LOG_LEVEL (default INFO), raised to Lambda's own log level (AWS_LAMBDA_LOG_LEVEL) when that is stricter. */
function thresholdFromEnv(): number {
  const own = THRESHOLDS[levelOf(process.env.POWERTOOLS_LOG_LEVEL) ?? 'INFO'];
  const lambda = levelOf(process.env.AWS_LAMBDA_LOG_LEVEL);
  return Math.max(own, lambda ? THRESHOLDS[lambda] : 0);
}

export type LogAttributes = Record<string, unknown>;

/** Where an error was thrown, `file:line`, from its stack (as Powertools reports it). */
function codeLocation(stack: string | undefined): string {
  for (const line of stack?.split('\n') ?? []) {
    const m = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/.exec(line);
    if (m) return `${m[1]}:${Number(m[2])}`;
  }
  return '';
}

function formatError(error: Error): LogAttributes {
  const { name, message, stack, cause, ...own } = error as Error & { cause?: unknown };
  return {
    name,
    location: codeLocation(stack),
    message,
    stack,
    cause: cause instanceof Error ? formatError(cause) : cause,
    ...own,
  };
}

/** JSON for any attribute value: errors spelt out, bigints as strings, a cycle cut instead of a throw. */
function serialize(record: LogAttributes): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(record, (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return formatError(value);
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  });
}

export class Logger {
  private readonly threshold = thresholdFromEnv();
  private readonly keys: LogAttributes = {};
  private context: LogAttributes = {};
  private coldStart = true;

  constructor(private readonly service: string) {}

  /** The Lambda context goes into every line from now on; the first invocation of the container is the cold start. */
  addContext(context: Context): void {
    this.context = {
      cold_start: this.coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    this.coldStart = false;
  }

  appendKeys(keys: LogAttributes): void {
    Object.assign(this.keys, keys);
  }

  removeKeys(names: readonly string[]): void {
    for (const name of names) delete this.keys[name];
  }

  debug(message: string, attributes?: LogAttributes): void {
    this.write('DEBUG', message, attributes);
  }

  info(message: string, attributes?: LogAttributes): void {
    this.write('INFO', message, attributes);
  }

  warn(message: string, attributes?: LogAttributes): void {
    this.write('WARN', message, attributes);
  }

  error(message: string, attributes?: LogAttributes): void {
    this.write('ERROR', message, attributes);
  }

  private write(level: Level, message: string, attributes: LogAttributes = {}): void {
    if (THRESHOLDS[level] < this.threshold) return;
    const line = serialize({
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.service,
      ...this.context,
      xray_trace_id: process.env._X_AMZN_TRACE_ID?.split(';')[0]?.replace('Root=', ''),
      ...this.keys,
      ...attributes,
    });
    // As Powertools' console does: warnings and errors on stderr, the rest on stdout (Lambda keeps both).
    (THRESHOLDS[level] >= THRESHOLDS.WARN ? process.stderr : process.stdout).write(`${line}\n`);
  }
}

export const logger = new Logger(process.env.POWERTOOLS_SERVICE_NAME ?? 'analytics-api');
