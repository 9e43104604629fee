import type { CheckResult } from "../../contract.js";
import { isUnknown, type CheckFailure, type Json, type Props } from "../../vocabulary.js";
import { isInternalHost, isLoopbackHost } from "./addresses.js";
import {
  isSupportedLanguage,
  maxGlossaryChars,
  maxGlossaryEntries,
  maxTimeoutMinutes,
  maxUploadBytes,
} from "./limits.js";
import { hashSource, statSource } from "./source.js";
import { transcriptTable, type TranscriptInputs } from "./fields.js";

const { fields } = transcriptTable;

/**
 * Validates Transcript inputs before any API call (spec §4.3, §8; docs/api-contract.md §8.2).
 * Values still unknown at preview are carried through unvalidated. Reads only the local file.
 * `apiUrl` is the configured transcription API address, when there is one.
 */
export function checkTranscriptInputs(news: Props, apiUrl: string | undefined): CheckResult<TranscriptInputs> {
  const failures: CheckFailure[] = [];
  const fail = (property: string, reason: string): void => {
    failures.push({ property, reason });
  };
  const inputs: TranscriptInputs = {
    language: fields.language.default,
    waitForCompletion: fields.waitForCompletion.default,
    timeoutMinutes: fields.timeoutMinutes.default,
  };

  const url = optionalString(news, "url", fail);
  const sourcePath = optionalString(news, "sourcePath", fail);
  if (url === undefined && sourcePath === undefined) {
    fail("source", "give exactly one of `url` or `source`; neither was given");
  } else if (url !== undefined && sourcePath !== undefined) {
    fail("source", "give exactly one of `url` or `source`, not both");
  }

  if (url !== undefined) {
    inputs.url = url;
    if (!isUnknown(url)) {
      const reason = urlProblem(url, apiUrl, "serve the media from a public URL, or give a local file as `source`");
      if (reason) fail("url", reason);
    }
  }

  if (sourcePath !== undefined) {
    inputs.sourcePath = sourcePath;
    if (!isUnknown(sourcePath)) {
      const hash = checkSourceFile(sourcePath, fail);
      if (hash) inputs.sourceHash = hash;
    }
  }

  const language = optionalString(news, "language", fail);
  if (language !== undefined) {
    inputs.language = language;
    if (!isUnknown(language) && !isSupportedLanguage(language)) {
      fail(
        "language",
        `"${truncate(language)}" is not a supported language: use "auto" or an ISO 639-1 code such as "en"`,
      );
    }
  }

  const glossary = checkGlossary(news["glossary"], fail);
  if (glossary !== undefined) inputs.glossary = glossary;

  const webhookUrl = optionalString(news, "webhookUrl", fail);
  if (webhookUrl !== undefined) {
    inputs.webhookUrl = webhookUrl;
    if (!isUnknown(webhookUrl)) {
      const reason = urlProblem(webhookUrl, apiUrl, "give a receiver the platform can reach");
      if (reason) fail("webhookUrl", reason);
    }
  }

  const wait = news["waitForCompletion"];
  if (wait !== undefined && wait !== null) {
    if (typeof wait === "boolean") inputs.waitForCompletion = wait;
    else if (!isUnknown(wait)) fail("waitForCompletion", "must be true or false");
  }

  const timeout = news["timeoutMinutes"];
  if (timeout !== undefined && timeout !== null && !isUnknown(timeout)) {
    if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0 || timeout > maxTimeoutMinutes) {
      fail(
        "timeoutMinutes",
        `must be a number of minutes above 0 and at most ${maxTimeoutMinutes} (the 7-day retention)`,
      );
    } else {
      inputs.timeoutMinutes = timeout;
    }
  }

  return { inputs, failures };
}

function optionalString(news: Props, key: string, fail: (p: string, r: string) => void): string | undefined {
  const value = news[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  fail(key, "must be a string");
  return undefined;
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * The platform refuses URLs (media and webhook alike) that are not http(s), carry user-info, or
 * point at a private or internal address (docs/api-contract.md §8.2). A local emulator on loopback
 * may be started to allow loopback URLs, so loopback targets are left to it when the API itself is
 * on loopback.
 */
function urlProblem(value: string, apiUrl: string | undefined, whatToDo: string): string | undefined {
  const parsed = parseUrl(value);
  if (!parsed || !/^https?:$/.test(parsed.protocol)) return "must be an absolute http(s) URL";
  if (parsed.username !== "" || parsed.password !== "") {
    return "must not carry a user name or password (the platform refuses user-info in URLs)";
  }
  if (!isInternalHost(parsed.hostname)) return undefined;
  const apiHost = apiUrl ? parseUrl(apiUrl)?.hostname : undefined;
  if (apiHost !== undefined && isLoopbackHost(apiHost) && isLoopbackHost(parsed.hostname)) return undefined;
  return `host "${parsed.hostname}" is a private or internal address, which the platform refuses: ${whatToDo}`;
}

function checkSourceFile(path: string, fail: (p: string, r: string) => void): string | undefined {
  const stat = statSource(path);
  if (stat.kind === "missing") {
    fail("source", `source file "${path}" does not exist (relative paths start from the program directory)`);
    return undefined;
  }
  if (stat.kind === "not-a-file") {
    fail("source", `source "${path}" is not a regular file`);
    return undefined;
  }
  if (stat.size > maxUploadBytes) {
    fail(
      "source",
      `source file "${path}" is ${stat.size} bytes; the platform accepts at most 2 GB (${maxUploadBytes} bytes)`,
    );
    return undefined;
  }
  return hashSource(path, stat.stats);
}

function checkGlossary(
  value: Json | undefined,
  fail: (p: string, r: string) => void,
): Record<string, string> | undefined {
  if (value === undefined || value === null || isUnknown(value)) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    fail("glossary", "must be a map from what is heard to what is written");
    return undefined;
  }
  const entries = Object.entries(value);
  if (entries.length > maxGlossaryEntries) {
    fail("glossary", `has ${entries.length} entries; the platform accepts at most ${maxGlossaryEntries}`);
  }
  const glossary: Record<string, string> = {};
  for (const [heard, written] of entries) {
    if (isUnknown(written)) {
      glossary[heard] = written as string;
      continue;
    }
    if (typeof written !== "string") {
      fail("glossary", `entry "${truncate(heard)}" must map to a string`);
      continue;
    }
    if (heard.length > maxGlossaryChars || written.length > maxGlossaryChars) {
      fail("glossary", `entry "${truncate(heard)}" is over ${maxGlossaryChars} characters (key or value)`);
    }
    glossary[heard] = written;
  }
  return glossary;
}

function truncate(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
