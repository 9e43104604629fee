/**
 * Messages of cores in the executable host go to stderr, which the engine collects from the
 * plugin process (stdout carries only the gRPC port). Redacted like every message.
 */
import type { Logger } from "../core.js";
import { redact } from "../redact.js";

export const stderrLogger: Logger = {
  info: (m) => void process.stderr.write(`info: ${redact(m)}\n`),
  warn: (m) => void process.stderr.write(`warning: ${redact(m)}\n`),
  debug: (m) => {
    if (process.env["CLOUDPLATFORM_DEBUG"] === "1") process.stderr.write(`debug: ${redact(m)}\n`);
  },
};
