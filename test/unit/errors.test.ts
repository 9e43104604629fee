// The error vocabulary is closed: the codes the provider throws are the list in errors.ts, each
// carried by one class, and the documentation names exactly those.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { settingTable } from "../../provider/config.js";
import * as errors from "../../provider/errors.js";
import {
  CloudPlatformError,
  ConflictError,
  errorCodes,
  NotFoundError,
  PartialCreateError,
  UnexpectedResponseError,
  withHint,
} from "../../provider/errors.js";
import { registerSecret } from "../../provider/redact.js";
import { docPages } from "../support/doc-links.mts";

const root = join(__dirname, "../..");
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** The codes of the "Provider error codes" item of docs/api-contract.md §2.2, abbreviations expanded. */
function contractCodes(): string[] {
  const section = /### 2\.2[^\n]*\n([\s\S]*?)\n### /.exec(read("docs/api-contract.md"))?.[1] ?? "";
  const item = /- Provider error codes:([\s\S]*?)(?=\n- |\n*$)/.exec(section)?.[1] ?? "";
  return [...item.matchAll(/`(CLOUDPLATFORM)?(_[A-Z0-9_]+(?:<status>)?)`/g)].map((m) => `CLOUDPLATFORM${m[2]}`);
}

type ErrorClass = (abstract new (...args: never[]) => CloudPlatformError) & { readonly code: string | undefined };

function errorClasses(): ErrorClass[] {
  const exported: unknown[] = Object.values(errors);
  return exported.filter(
    (value): value is ErrorClass =>
      typeof value === "function" && (value as { prototype: unknown }).prototype instanceof CloudPlatformError,
  );
}

describe("error vocabulary", () => {
  it("docs/api-contract.md §2.2 lists exactly the codes of the union", () => {
    expect(contractCodes().sort()).toEqual([...errorCodes].sort());
  });

  it("every code has one class, and every class one code", () => {
    const codes = errorClasses().map((c) => c.code ?? "CLOUDPLATFORM_HTTP_<status>");
    expect(codes.sort()).toEqual([...errorCodes].sort());
  });

  it("the README and every page of the docs mention no code outside the union", () => {
    const settings = new Set(Object.values(settingTable).map((s) => s.env));
    const documented = new Set<string>(errorCodes);
    for (const file of docPages()) {
      // `NAME=value` is an environment variable being set (CLOUDPLATFORM_HASH_CACHE=off), not a code.
      const mentioned = read(file).match(/CLOUDPLATFORM_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_=])/g) ?? [];
      for (const code of mentioned) if (!settings.has(code)) expect(documented, `${file}: ${code}`).toContain(code);
    }
  });

  it("builds every message as `<what failed> (<code>). <what to do>`", () => {
    expect(new NotFoundError("no zone named x exists.", "Check the name.").message).toBe(
      "no zone named x exists (CLOUDPLATFORM_NOT_FOUND). Check the name.",
    );
    expect(new errors.HttpError("GET /x failed with 418", "", { status: 418 })).toMatchObject({
      code: "CLOUDPLATFORM_HTTP_418",
      message: "GET /x failed with 418 (CLOUDPLATFORM_HTTP_418).",
    });
  });
});

describe("what an error says beyond its code", () => {
  it("is rendered once, from its parts: hints after what to do, then the attempts of a request given up", () => {
    const err = new ConflictError("POST /z failed with 409", "The name is taken.", {
      status: 409,
      hints: ["Pick another name."],
      attempts: 3,
      elapsedMs: 12_400,
    });
    expect(err.message).toBe(
      "POST /z failed with 409 (CLOUDPLATFORM_CONFLICT). The name is taken. Pick another name. " +
        "Gave up after 3 attempts in 12s; try again later.",
    );
    expect(err).toMatchObject({
      what: "POST /z failed with 409",
      todo: "The name is taken.",
      hints: ["Pick another name."],
    });
  });

  it("is added by making a new error of the same class, the first one left as it was", () => {
    const cause = new Error("lost");
    const first = new UnexpectedResponseError("POST /b", ["unexpected"], "id: required", 201);
    const second = first
      .withDetails({ hints: ["Check the dashboard."] })
      .withDetails({ hints: ["Then run it again."] });
    expect(second).toBeInstanceOf(UnexpectedResponseError);
    expect(second).toMatchObject({
      code: "CLOUDPLATFORM_UNEXPECTED_RESPONSE",
      status: 201,
      receivedKeys: ["unexpected"],
    });
    expect(second.name).toBe("UnexpectedResponseError");
    expect(second.message).toBe(`${first.message} Check the dashboard. Then run it again.`);
    expect(first.hints).toEqual([]);
    const partial = new PartialCreateError("id-1", { a: 1 }, cause).withDetails({ resource: 'Thing "t"' });
    expect(partial).toMatchObject({ id: "id-1", outs: { a: 1 }, reasons: ["lost"], cause });
    expect(partial.message).toMatch(/^Thing "t": lost \(CLOUDPLATFORM_PARTIAL\)\. The object exists/);
  });

  it("names its resource once, with the secrets known by then redacted", () => {
    const err = new NotFoundError("no key late-secret-ERRORS1 here", "Check it.");
    registerSecret("late-secret-ERRORS1");
    const named = err.forResource("Bucket", "logs");
    expect(named.message).toBe('Bucket "logs": no key [redacted] here (CLOUDPLATFORM_NOT_FOUND). Check it.');
    expect(named.forResource("Bucket", "other").message).toBe(named.message);
    const known = new NotFoundError("late-secret-ERRORS1", "late-secret-ERRORS1", { hints: ["late-secret-ERRORS1"] });
    expect(JSON.stringify({ ...known, message: known.message })).not.toContain("late-secret-ERRORS1");
    expect(err.forResource("Bucket", "").message).toBe("no key [redacted] here (CLOUDPLATFORM_NOT_FOUND). Check it.");
  });

  it("is hinted only when the error has the code the hint is about", () => {
    const notFound = new NotFoundError("GET /b/1 failed with 404");
    expect((withHint(notFound, "CLOUDPLATFORM_NOT_FOUND", "Check bucketId.") as Error).message).toBe(
      "GET /b/1 failed with 404 (CLOUDPLATFORM_NOT_FOUND). Check bucketId.",
    );
    expect(withHint(notFound, "CLOUDPLATFORM_CONFLICT", "Pick another name.")).toBe(notFound);
    const plain = new Error("not ours");
    expect(withHint(plain, "CLOUDPLATFORM_NOT_FOUND", "Check bucketId.")).toBe(plain);
  });
});
