// The documentation's TypeScript programs as a reader uses them (issue 35): each page's program
// (its `ts` blocks in order, pasted into one index.ts, after the program its text says it continues)
// deployed in a folder of its own laid out as `pulumi new typescript` lays it out, outside this
// repository, with the package installed by npm from its packed tarball and the Pulumi CLI on PATH:
// `pulumi up`, `pulumi preview --expect-no-changes`, `pulumi destroy`. The pages on the generated
// SDK (@pulumi-cloudplatform/sdk) get its tarball and the plugin installed from its own, as
// docs/languages.md says. Then every page's TypeScript, deployed or not, type-checked by the
// installed TypeScript against the installed packages (what a reader's editor sees), not against
// this repository's sources.
//
// npm installs once per package, into one folder; each page's folder is a copy of it (node_modules
// hard-linked, which npm and Pulumi only read), so each story still starts from a folder of its
// own. Each page has its own emulator (docs/resources.md rotates the project's API key) and runs
// beside the others.
// The only changes to the text are the values the reader has and we do not (`substitutions`), put
// in place by the harness; the files a program reads (media, a site's folder) are made beside it.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, management, type Emulator } from "../support/emulator.js";
import { blocksOf, programContinues, recordUse, type DocBlock } from "../support/doc-blocks.mts";
import { docPages, repoRoot } from "../support/doc-links.mts";
import { emulatorState } from "../support/platform.mts";
import { needs } from "../support/tools.mts";
import { languageHostFolder, npmEnv, npmPack, packSdk, plainPath, pulumiNewTypescript } from "./support/packages.js";
import { packPlugin, pluginVersion, pulumiBinDir } from "./support/plugin-cli.js";
import { speak } from "./support/transcript.js";

const run = promisify(execFile);
const self = "test/e2e/doc-programs.test.ts";

const isTypescript = (block: DocBlock) => /^(ts|typescript)$/.test(block.language);
const tsBlocksOf = async (page: string) =>
  blocksOf(page, await readFile(path.join(repoRoot, page), "utf8")).filter(isTypescript);
const programOf = (page: string, blocks: readonly DocBlock[]) =>
  `${programContinues[page] ?? ""}${blocks.map((b) => b.text).join("\n")}`;

/** What a story has on the platform before its `up`, and the reader's values for the program's. */
interface Prepared {
  /** Text of the page → the value a reader has there. */
  readonly substitutions?: Record<string, string>;
}

interface Story {
  readonly page: string;
  /**
   * The package it uses: the dynamic one (`pulumi-cloudplatform`), or the generated SDK
   * (`@pulumi-cloudplatform/sdk`), installed from its tarball beside the plugin, installed with
   * `pulumi plugin install … --file` (docs/languages.md).
   */
  readonly sdk?: true;
  /** Which part of the page it deploys, when not all of it. */
  readonly part?: string;
  /** The blocks it deploys, and the program they make (default: all of the page's, as `programOf`). */
  readonly program?: (blocks: readonly DocBlock[]) => { blocks: DocBlock[]; text: string };
  /** The files the program reads, written in its folder: path → content. */
  readonly files?: (dir: string) => Promise<void>;
  /** What exists outside Pulumi before the reader's `up` (the page says so). */
  readonly before?: (emulator: Emulator) => Promise<Prepared>;
  /** What the page tells the reader to do after `up`, as a shell command run in the folder. */
  readonly afterUp?: (page: string) => string;
  /** The buckets left on the platform after `destroy` (those made outside Pulumi). */
  readonly bucketsLeft: number;
}

async function json(response: Response): Promise<Record<string, string>> {
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, string>;
}

/** The reader's recording, spoken once by espeak-ng (beforeAll) and copied into each folder that reads it. */
let recording: string;
const keynote = async (dir: string) => {
  await mkdir(path.join(dir, "media"), { recursive: true });
  await copyFile(recording, path.join(dir, "media", "keynote.wav"));
};

const site = async (dir: string) => {
  await mkdir(path.join(dir, "www"), { recursive: true });
  await writeFile(path.join(dir, "www", "index.html"), "<h1>hello</h1>\n");
  await writeFile(path.join(dir, "www", "app.js.map"), "{}\n"); // excluded by docs/resources.md's `*.map`
};

const underHeading = (blocks: readonly DocBlock[], heading: string) => blocks.filter((b) => b.heading === heading);

const stories: readonly Story[] = [
  {
    page: "docs/resources.md",
    part: "all but the ApiKey",
    // The ApiKey has a story of its own: a request the provider sent with the key before the
    // rotation fails with 401 once it is rotated (seen with the Transcript's upload in one program).
    program: (all) => {
      const blocks = all.filter((b) => b.heading !== "ApiKey");
      return { blocks, text: programOf("docs/resources.md", blocks) };
    },
    files: async (dir) => {
      await Promise.all([keynote(dir), site(dir), mkdir(path.join(dir, "build"), { recursive: true })]);
      await writeFile(path.join(dir, "build", "model.bin"), Buffer.alloc(4096, 7));
    },
    before: async (emulator) => {
      // The page takes over "a credential that exists already, of a bucket made outside Pulumi", and
      // looks up "a zone managed elsewhere": both made here as someone outside Pulumi would.
      const legacy = await json(
        await management(emulator, "POST", "/object-storage/buckets", {
          name: "media-legacy",
          storage_class: "Standard",
        }),
      );
      const key = await json(await management(emulator, "POST", `/object-storage/buckets/${legacy["id"]}/credentials`));
      await json(await management(emulator, "POST", "/dns/zones", { name: "example.org" }));
      return { substitutions: { CPAK0123456789ABCDEF: key["access_key_id"]! } };
    },
    bucketsLeft: 1,
  },
  {
    page: "docs/resources.md",
    part: "the ApiKey",
    // Its block after the imports of the page's first one, which it continues.
    program: (all) => {
      const imports = all[0]!.text.split("\n").filter((line) => line.startsWith("import "));
      const blocks = underHeading(all, "ApiKey");
      return { blocks, text: `${imports.join("\n")}\n${blocks.map((b) => b.text).join("\n")}` };
    },
    // The ApiKey rotated the key the stack's config holds: the page's next step.
    afterUp: (page) => {
      const step = /`(pulumi config set --secret cloudplatform:apiKey "\$\(pulumi stack output apiKey[^`]*)`/.exec(
        page,
      );
      if (!step) throw new Error("docs/resources.md no longer says how to put the rotated API key in the config");
      return step[1]!;
    },
    bucketsLeft: 0,
  },
  { page: "docs/rotation.md", bucketsLeft: 0 },
  { page: "docs/_index.md", part: "TypeScript", sdk: true, bucketsLeft: 0 },
  { page: "docs/languages.md", part: "Node.js (generated)", sdk: true, bucketsLeft: 0 },
  { page: "docs/transcript.md", files: keynote, bucketsLeft: 0 },
  { page: "docs/objects.md", files: site, bucketsLeft: 0 },
];

const tools = needs("espeak-ng");
// Skipped on a machine without the tool: its blocks are recorded as such, so that `npm test` there
// reports them not run on this machine rather than refusing them as run by no test.
if (tools.skip === true) {
  const reason = String(tools.meta?.["skipReason"] ?? "a tool is missing");
  for (const story of stories) {
    const all = blocksOf(story.page, readFileSync(path.join(repoRoot, story.page), "utf8")).filter(isTypescript);
    recordUse(story.program?.(all).blocks ?? all, "skipped", self, reason);
  }
}

describe("the documentation's TypeScript programs, deployed as written from the packed package", tools, () => {
  let scratch: string;
  /** The installed folders: the dynamic package's, the generated SDK's. */
  let base: string;
  let baseSdk: string;
  let env: Record<string, string>;
  const emulators: Emulator[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-doc-programs-"));
    const [tarball, binDir, hostDir, sdkTarball, pluginTarball] = await Promise.all([
      npmPack(".", path.join(scratch, "packed")),
      pulumiBinDir(),
      languageHostFolder(scratch),
      packSdk(path.join(scratch, "sdk")),
      packPlugin(path.join(scratch, "plugin")),
    ]);
    env = {
      ...npmEnv(),
      npm_config_prefer_offline: "true",
      PATH: plainPath([hostDir, binDir]),
      PULUMI_HOME: path.join(scratch, "pulumi-home"),
      PULUMI_CONFIG_PASSPHRASE: "docs",
      PULUMI_SKIP_UPDATE_CHECK: "true",
    };
    recording = await speak(path.join(scratch, "keynote.wav"), "welcome to the keynote about pulumi");
    base = path.join(scratch, "base");
    baseSdk = path.join(scratch, "base-sdk");
    // As the README's reader installs it: the template's packages, then the release's tarball
    // (docs/languages.md's reader: the SDK's tarball, and the plugin's into PULUMI_HOME).
    await Promise.all([
      pulumiNewTypescript(base, "docs", { env, add: [tarball] }),
      pulumiNewTypescript(baseSdk, "docs", { env, add: [sdkTarball] }),
      run("pulumi", ["plugin", "install", "resource", "cloudplatform", pluginVersion(), "--file", pluginTarball], {
        env,
      }),
    ]);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(emulators.map((e) => e.close()));
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const named = (story: Story) => `${story.page}${story.part === undefined ? "" : ` (${story.part})`}`;
  it.concurrent.each(stories.map((story) => [named(story), story] as const))(
    "%s: up, a preview with no change, destroy",
    async (name, story) => {
      const page = story.page;
      const all = await tsBlocksOf(page);
      const { blocks, text } = story.program?.(all) ?? { blocks: all, text: programOf(page, all) };
      expect(blocks.length).toBeGreaterThan(0);
      const slug = name.replace(/[^a-z0-9]+/gi, "-");
      const dir = path.join(scratch, slug);
      // node_modules hard-linked (read only); the rest copied, since each story writes its index.ts.
      await mkdir(dir);
      const installed = story.sdk ? baseSdk : base;
      await run("cp", ["-al", path.join(installed, "node_modules"), dir]);
      await run("cp", ["Pulumi.yaml", "package.json", "package-lock.json", "tsconfig.json", dir], { cwd: installed });
      const emulator = await launchEmulator();
      emulators.push(emulator);
      const prepared = (await story.before?.(emulator)) ?? {};
      let program = text;
      for (const [text, value] of Object.entries(prepared.substitutions ?? {})) {
        expect(program, `the harness replaces ${text}, which ${page} no longer has`).toContain(text);
        program = program.replaceAll(text, value);
      }
      await writeFile(path.join(dir, "index.ts"), program);
      await story.files?.(dir);
      await mkdir(path.join(dir, ".backend"));
      const storyEnv = {
        ...env,
        PULUMI_BACKEND_URL: `file://${path.join(dir, ".backend")}`,
        CLOUDPLATFORM_DOC_API_KEY: emulator.apiKey,
      };
      const shell = async (script: string) => {
        try {
          return await run("bash", ["-c", `set -euo pipefail\n${script}`], {
            cwd: dir,
            env: storyEnv,
            maxBuffer: 64 << 20,
            timeout: 600_000,
          });
        } catch (error) {
          const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
          throw new Error(`${name}: \`${script.trim()}\` failed:\n${stdout}\n${stderr}`, { cause: error });
        }
      };
      // README.md's steps, with this emulator's addresses (the key from the environment, never on a command line).
      await shell(
        [
          "pulumi stack init dev --non-interactive",
          `pulumi config set cloudplatform:baseUrl ${emulator.baseUrl}`,
          `pulumi config set cloudplatform:s3Url ${emulator.s3Url}`,
          `pulumi config set cloudplatform:apiUrl ${emulator.apiUrl}`,
          'pulumi config set --secret cloudplatform:apiKey "$CLOUDPLATFORM_DOC_API_KEY"',
        ].join("\n"),
      );
      await shell("pulumi up --yes --non-interactive");
      if (story.afterUp) await shell(story.afterUp(await readFile(path.join(repoRoot, page), "utf8")));
      await shell("pulumi preview --expect-no-changes --non-interactive");
      await shell("pulumi destroy --yes --non-interactive");
      expect(await emulatorState(emulator)).toMatchObject({ buckets: story.bucketsLeft });
      recordUse(blocks, "ran", self);
    },
    600_000,
  );

  /** `tsc --noEmit` in `dir` over the programs of the pages that use `pkg` and only what its reader installs. */
  async function typecheck(dir: string, pkg: string): Promise<string[]> {
    const allowed = new Set(["@pulumi/pulumi", pkg]);
    const programs: Array<{ page: string; blocks: DocBlock[]; file: string }> = [];
    for (const page of docPages()) {
      const blocks = await tsBlocksOf(page);
      const text = programOf(page, blocks);
      const imports = [...text.matchAll(/from "([^"]+)"/g)].map((m) => m[1]!);
      const usesOnly = imports.includes(pkg) && imports.every((name) => allowed.has(name));
      // A top-level await (emulator/README.md) needs an ES module: left to the unit tier.
      if (blocks.length === 0 || /^await /m.test(text) || !usesOnly) continue;
      const file = `doc-${page.replace(/[^a-z0-9]+/gi, "-")}.ts`;
      await writeFile(path.join(dir, file), `${text}\nexport {};\n`);
      programs.push({ page, blocks, file });
    }
    const config = {
      extends: "./tsconfig.json",
      compilerOptions: { noEmit: true },
      files: programs.map((p) => p.file),
    };
    await writeFile(path.join(dir, "tsconfig.docs.json"), JSON.stringify(config));
    const tsc = path.join(dir, "node_modules", ".bin", "tsc");
    const found = await run(tsc, ["-p", "tsconfig.docs.json", "--pretty", "false"], { cwd: dir, env }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(found, `${pkg}: the documentation's TypeScript does not compile against the installed package`).toBe("");
    for (const { blocks } of programs) recordUse(blocks, "type-checked", self);
    return programs.map((p) => p.page);
  }

  // The harness's example (docs/architecture.md) and the emulator's (emulator/README.md) are
  // type-checked by test/unit/doc-examples.test.ts against the sources.
  it.concurrent(
    "every page's TypeScript type-checks against the installed packages (tsc --noEmit)",
    async () => {
      const [dynamic, generated] = await Promise.all([
        typecheck(base, "pulumi-cloudplatform"),
        typecheck(baseSdk, "@pulumi-cloudplatform/sdk"),
      ]);
      expect([...dynamic, ...generated]).toEqual(
        expect.arrayContaining([...stories.map((s) => s.page), "README.md", "docs/public-api.md"]),
      );
    },
    300_000,
  );
});
