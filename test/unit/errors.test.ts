// The error vocabulary is closed: the codes the provider throws are the list in errors.ts, each
// carried by one class, and the documentation names exactly those.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { settingTable } from "../../provider/config.js";
import * as errors from "../../provider/errors.js";
import { CloudPlatformError, errorCodes, NotFoundError } from "../../provider/errors.js";

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

  it("the README and the docs mention no code outside the union", () => {
    const settings = new Set(Object.values(settingTable).map((s) => s.env));
    const documented = new Set<string>(errorCodes);
    for (const file of ["README.md", "docs/api-contract.md", "docs/transcript.md", "docs/executable-provider.md"]) {
      const mentioned = read(file).match(/CLOUDPLATFORM_[A-Z0-9_]*[A-Z0-9]/g) ?? [];
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
