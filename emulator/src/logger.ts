import type { Logger } from "./interfaces.js";

/** Where log lines go; stderr by default so stdout carries only the ready line. */
type LogSink = (line: string) => void;

/**
 * One line per event: `<time> <level> <message> <fields as JSON>`. Callers pass only
 * non-secret fields; this logger never sees headers or query strings.
 */
export function createLogger(sink: LogSink = (line) => process.stderr.write(line + "\n")): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>): void => {
    const suffix = fields === undefined || Object.keys(fields).length === 0 ? "" : " " + JSON.stringify(fields);
    sink(`${new Date().toISOString()} ${level} ${message}${suffix}`);
  };
  return {
    info: (message, fields) => write("info", message, fields),
    warn: (message, fields) => write("warn", message, fields),
    error: (message, fields) => write("error", message, fields),
  };
}

/** A logger that drops everything (tests, `--quiet`). */
export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
