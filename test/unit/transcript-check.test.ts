import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unknownValue, type Props } from "../../provider/vocabulary.js";
import { transcriptCore } from "../../provider/resources/transcript/core.js";
import { isInternalHost } from "../../provider/resources/transcript/addresses.js";
import type { AnyCore } from "../../provider/contract.js";
import { testHost } from "./support.js";
const dir = mkdtempSync(join(tmpdir(), "transcript-check-"));
const audio = join(dir, "a.wav");
writeFileSync(audio, "RIFF audio bytes");

/** Check as the host runs it, with the transcription API configured at `apiUrl`. */
function check(news: Props, apiUrl = "https://api.cloudplatform.example") {
  const host = testHost();
  host.configure({ "cloudplatform:apiUrl": apiUrl });
  return transcriptCore.check(host.context("Transcript", "talk"), undefined, news);
}

function reasons(news: Props, apiUrl?: string): string[] {
  return check(news, apiUrl).failures.map((f) => `${f.property}: ${f.reason}`);
}

// Preview must not call the API: any request fails the test.
beforeAll(() => nock.disableNetConnect());
afterAll(() => {
  nock.enableNetConnect();
  rmSync(dir, { recursive: true, force: true });
});

describe("Transcript check", () => {
  it("applies defaults and computes the content hash of a file source", () => {
    const result = check({ sourcePath: audio });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toEqual({
      sourcePath: audio,
      sourceHash: createHash("sha256").update("RIFF audio bytes").digest("hex"),
      language: "auto",
      waitForCompletion: true,
      timeoutMinutes: 1440,
    });
  });

  it("changes the hash when the file's content changes", () => {
    const file = join(dir, "changing.wav");
    writeFileSync(file, "one");
    const first = check({ sourcePath: file }).inputs.sourceHash;
    writeFileSync(file, "two, longer");
    expect(check({ sourcePath: file }).inputs.sourceHash).not.toBe(first);
  });

  it("refuses both sources and neither", () => {
    expect(reasons({ url: "https://m.example.com/a.mp3", sourcePath: audio })).toEqual([
      'source: Transcript "talk": give exactly one of `url` or `source`, not both',
    ]);
    expect(reasons({})).toEqual([
      'source: Transcript "talk": give exactly one of `url` or `source`; neither was given',
    ]);
  });

  it.each(["ftp://m.example.com/a.mp3", "file:///etc/passwd", "not a url", "//m.example.com/a.mp3"])(
    "refuses the non-http(s) URL %s",
    (url) => {
      expect(reasons({ url })).toEqual(['url: Transcript "talk": must be an absolute http(s) URL']);
    },
  );

  it.each([
    "http://localhost/a.mp3",
    "http://app.localhost:8080/a.mp3",
    "http://127.0.0.1/a.mp3",
    "http://2130706433/a.mp3",
    "http://10.1.2.3/a.mp3",
    "http://172.16.0.1/a.mp3",
    "http://192.168.1.10/a.mp3",
    "http://169.254.169.254/latest/meta-data",
    "http://100.64.0.1/a.mp3",
    "http://0.0.0.0/a.mp3",
    "http://192.0.2.7/a.mp3",
    "http://[2001:db8::1]/a.mp3",
    "http://[::1]/a.mp3",
    "http://[fd00::1]/a.mp3",
    "http://[fe80::1]/a.mp3",
    "http://[::ffff:10.0.0.1]/a.mp3",
    "http://[::ffff:127.0.0.1]/a.mp3",
  ])("refuses the private or internal host of %s", (url) => {
    const [reason] = reasons({ url });
    expect(reason).toMatch(
      /^url: Transcript "talk": host "[^"]+" is a private or internal address, which the platform refuses/,
    );
  });

  it.each([
    "https://media.example.com/a.mp3",
    "http://8.8.8.8/a.mp3",
    "http://[2001:4860::8888]/a.mp3",
    "http://172.32.0.1/a.mp3",
  ])("accepts the public URL %s", (url) => {
    expect(reasons({ url })).toEqual([]);
  });

  it("allows loopback media URLs only when the configured API is itself on loopback", () => {
    expect(reasons({ url: "http://127.0.0.1:9000/a.wav" }, "http://127.0.0.1:8080")).toEqual([]);
    expect(reasons({ url: "http://localhost:9000/a.wav" }, "http://localhost:8080")).toEqual([]);
    expect(reasons({ url: "http://[::1]:9000/a.wav" }, "http://[::1]:8080")).toEqual([]);
    // A local emulator allows loopback, not the rest of the private ranges.
    expect(reasons({ url: "http://10.0.0.5/a.wav" }, "http://127.0.0.1:8080")).toHaveLength(1);
    expect(reasons({ url: "http://127.0.0.1:9000/a.wav" }, "https://api.cloudplatform.example")).toHaveLength(1);
  });

  it("refuses a missing file and a directory", () => {
    expect(reasons({ sourcePath: join(dir, "nope.wav") })[0]).toMatch(/^source: .*does not exist/);
    expect(reasons({ sourcePath: dir })[0]).toMatch(/^source: .*is not a regular file/);
  });

  it("names source in every failure about it, which the engine shows without a value ({<nil>} otherwise)", async () => {
    const host = testHost();
    host.configure({ "cloudplatform:apiUrl": "https://api.cloudplatform.example" });
    const call = { core: transcriptCore as unknown as AnyCore, name: "talk" };
    const cases: Props[] = [
      { sourcePath: join(dir, "nope.wav") },
      {},
      { url: "https://m.example.com/a", sourcePath: audio },
    ];
    for (const news of cases) {
      const { failures } = await host.check(call, {}, news);
      // No input holds `source` (it travels as sourcePath): a failure about it is the resource's.
      expect(failures[0]?.property).toBe("");
      expect(failures[0]?.reason).toContain("source");
    }
    const { failures } = await host.check(call, {}, { url: "ftp://m.example.com/a" });
    expect(failures[0]?.property).toBe("url");
  });

  it("refuses a file over 2 GB without reading it", () => {
    const big = join(dir, "big.wav");
    const fd = openSync(big, "w");
    // Sparse: takes no disk space.
    ftruncateSync(fd, 2 * 1024 ** 3 + 1);
    closeSync(fd);
    expect(reasons({ sourcePath: big })).toEqual([
      `source: Transcript "talk": source file "${big}" is 2147483649 bytes; the platform accepts at most 2 GB (2147483648 bytes)`,
    ]);
  });

  it("refuses unsupported languages and accepts auto and ISO 639-1 codes", () => {
    expect(reasons({ url: "https://m.example.com/a", language: "xx" })[0]).toMatch(
      /^language: .*"xx" is not a supported language/,
    );
    expect(reasons({ url: "https://m.example.com/a", language: "EN" })).toHaveLength(1);
    for (const language of ["auto", "en", "de", "haw", "yue"]) {
      expect(reasons({ url: "https://m.example.com/a", language })).toEqual([]);
    }
  });

  it("refuses a glossary over its limits", () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`w${i}`, `W${i}`]));
    expect(reasons({ url: "https://m.example.com/a", glossary: many })).toEqual([
      'glossary: Transcript "talk": has 101 entries; the platform accepts at most 100',
    ]);
    expect(reasons({ url: "https://m.example.com/a", glossary: { ["k".repeat(101)]: "v" } })[0]).toMatch(
      /over 100 characters/,
    );
    expect(reasons({ url: "https://m.example.com/a", glossary: { k: "v".repeat(101) } })[0]).toMatch(
      /over 100 characters/,
    );
    expect(reasons({ url: "https://m.example.com/a", glossary: { k: 3 } })[0]).toMatch(/must map to a string/);
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`w${i}`, "x".repeat(100)]));
    expect(reasons({ url: "https://m.example.com/a", glossary: hundred })).toEqual([]);
  });

  it("refuses user-info in a URL", () => {
    expect(reasons({ url: "https://user:pw@m.example.com/a.mp3" })[0]).toMatch(
      /^url: .*must not carry a user name or password/,
    );
  });

  it("holds the webhook URL to the same rules, with the same loopback waiver", () => {
    expect(reasons({ url: "https://m.example.com/a", webhookUrl: "mailto:x@example.com" })[0]).toMatch(
      /^webhookUrl: .*http\(s\)/,
    );
    expect(reasons({ url: "https://m.example.com/a", webhookUrl: "http://192.168.0.2/hook" })[0]).toMatch(
      /^webhookUrl: .*private or internal/,
    );
    expect(
      reasons({ url: "https://m.example.com/a", webhookUrl: "http://127.0.0.1:7000/hook" }, "http://127.0.0.1:8080"),
    ).toEqual([]);
    expect(reasons({ url: "https://m.example.com/a", webhookUrl: "https://hooks.example.com/t" })).toEqual([]);
  });

  it("refuses a bad timeout", () => {
    expect(reasons({ url: "https://m.example.com/a", timeoutMinutes: 0 })[0]).toMatch(/^timeoutMinutes: /);
    expect(reasons({ url: "https://m.example.com/a", timeoutMinutes: 20_000 })[0]).toMatch(/7-day retention/);
  });

  it("does not validate values unknown at preview", () => {
    const result = check({
      url: unknownValue,
      language: unknownValue,
      webhookUrl: unknownValue,
      glossary: { k: unknownValue },
    });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ url: unknownValue, language: unknownValue, glossary: { k: unknownValue } });
    expect(check({ sourcePath: unknownValue }).failures).toEqual([]);
  });
});

describe("internal host classification", () => {
  it("does not resolve names: a public-looking name is left to the platform", () => {
    expect(isInternalHost("internal.example.com")).toBe(false);
    expect(isInternalHost("LOCALHOST.")).toBe(true);
  });
});
