import pino, { type Logger } from 'pino';

export type { Logger };

/** Secrets and identity numbers never reach a log line, whatever object carries them. */
const SECRET_FIELDS = [
  'password',
  'secret',
  'client_secret',
  'nin',
  'bvn',
  'apiKey',
  'token',
  'access_token',
  'refresh_token',
  'authorization',
  'cookie',
];
const REDACT_PATHS = SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`, `*.*.*.${field}`]).concat([
  'req.headers["x-api-key"]',
]);

/** `toStderr` keeps stdout clean for commands whose output is read by scripts (the CLI's --json). */
export function createLogger(level: string, name: string, options: { toStderr?: boolean } = {}): Logger {
  const settings = { name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: name } };
  return options.toStderr ? pino(settings, pino.destination(2)) : pino(settings);
}
