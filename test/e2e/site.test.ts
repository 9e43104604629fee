// examples/site with the real engine against the emulator: a SyncedFolder and a BucketObject
// created, read back with awscli and rclone, left alone by a no-change preview and up (zero object
// requests), one edited file sent with exactly one PUT, one removed file deleted with exactly one
// DELETE, objects changed and removed outside Pulumi seen by refresh and restored by up, and
// destroyed. The request counts are the emulator's, for the site's bucket alone.
import { appendFile, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { needs } from "../support/tools.mjs";
import { useExampleStack } from "../support/hooks.js";
import { emulatorState } from "../support/platform.mts";
import {
  bucketRequests,
  deleteOutside,
  headersOf,
  listKeys,
  listWithAws,
  putOutside,
  readWithAws,
  readObject,
  listWithRclone,
  readWithRclone,
  requestsBetween,
} from "./support/objects.js";
import { changesOtherThanSame, opsOf, type RunResult } from "../support/runner.js";
import { accessFrom, type S3Access } from "./support/s3.js";

/** Object requests: every S3 route but the listing ones (a refresh lists). */
const objectRoutes = (requests: Record<string, number>) =>
  Object.fromEntries(Object.entries(requests).filter(([route]) => route.includes("{key}")));

describe("examples/site", () => {
  const site = useExampleStack("site");
  let access: S3Access;
  let www: string;

  beforeAll(() => {
    www = path.join(site.stack.workDir, "www");
  });

  /** Runs `op` and returns the object requests it made to the site's bucket. */
  async function counted(
    op: () => Promise<RunResult>,
  ): Promise<{ result: RunResult; requests: Record<string, number> }> {
    const before = await bucketRequests(site.emulator, access.bucket);
    const result = await op();
    return { result, requests: requestsBetween(before, await bucketRequests(site.emulator, access.bucket)) };
  }

  it("`pulumi up` uploads the folder under site/ and the settings object, with their content types", async () => {
    const up = await site.stack.up();
    access = accessFrom(up);
    expect(up.outputs?.["fileCount"]?.value).toBe(4);
    expect(await listKeys(access, "site/")).toEqual([
      "site/assets/site.css",
      "site/assets/site.js",
      "site/index.html",
      "site/robots.txt",
      "site/settings.json",
    ]);
    expect(await headersOf(access, "site/index.html")).toEqual({
      contentType: "text/html; charset=utf-8",
      cacheControl: "public, max-age=300",
    });
    expect((await headersOf(access, "site/assets/site.css")).contentType).toBe("text/css; charset=utf-8");
    expect((await headersOf(access, "site/settings.json")).contentType).toBe("application/json");
  });

  it("awscli lists and reads back what was uploaded", needs("aws"), async () => {
    expect(await listWithAws(access, "site/")).toEqual(await listKeys(access, "site/"));
    expect(await readWithAws(access, "site/index.html")).toEqual(await readFile(path.join(www, "index.html")));
    expect(JSON.parse((await readWithAws(access, "site/settings.json")).toString())).toEqual({
      title: "Hello from the Cloud Platform",
    });
  });

  it("rclone lists and reads back what was uploaded", needs("rclone"), async () => {
    expect(await listWithRclone(access, "site/")).toEqual(await listKeys(access, "site/"));
    expect(await readWithRclone(access, "site/assets/site.js")).toEqual(
      await readFile(path.join(www, "assets/site.js")),
    );
  });

  it("a preview and an up with no change send no object request at all", async () => {
    const preview = await counted(() => site.stack.preview());
    expect(changesOtherThanSame(preview.result)).toEqual({});
    expect(objectRoutes(preview.requests)).toEqual({});
    const up = await counted(() => site.stack.up());
    expect(changesOtherThanSame(up.result)).toEqual({});
    expect(up.requests).toEqual({});
  });

  it("an edited file is exactly one PUT; the preview names it, and `--diff` shows a one-line change", async () => {
    await appendFile(path.join(www, "robots.txt"), "Disallow: /drafts/\n");
    const preview = await site.stack.preview();
    expect(opsOf(preview, "www")).toEqual(["update"]);
    expect(preview.stdout ?? "").toContain("0 to add, 1 to change, 0 to delete: ~ robots.txt");
    const detailed = (await site.stack.previewDiff()).stdout ?? "";
    const digest = /4 files, sha256:[0-9a-f]{64}/.source;
    expect(detailed).toMatch(new RegExp(`~ manifestDigest *: "${digest}" => "${digest}"\n`));
    expect(detailed).not.toContain("manifest:");
    expect(detailed.length).toBeLessThan(8 * 1024);
    const up = await counted(() => site.stack.up());
    expect(up.requests).toEqual({ "PUT /{bucket}/{key}": 1 });
    expect((await readObject(access, "site/robots.txt")).toString()).toContain("Disallow: /drafts/");
  });

  it("a removed file is exactly one DELETE", async () => {
    await rm(path.join(www, "assets/site.js"));
    const up = await counted(() => site.stack.up());
    expect(up.requests).toEqual({ "DELETE /{bucket}/{key}": 1 });
    expect(await listKeys(access, "site/assets/")).toEqual(["site/assets/site.css"]);
    expect(up.result.outputs?.["fileCount"]?.value).toBe(3);
  });

  it("refresh sees objects changed and removed outside Pulumi; up restores exactly those", async () => {
    await putOutside(access, "site/index.html", "defaced");
    await deleteOutside(access, "site/assets/site.css");
    await putOutside(access, "site/settings.json", "{}");
    const refresh = await counted(() => site.stack.refresh());
    // One listing for the folder, one HEAD for the object: no HEAD per file.
    expect(refresh.requests).toEqual({ "GET /{bucket}?list-type=2": 1, "HEAD /{bucket}/{key}": 1 });
    const after = await site.stack.preview();
    expect(opsOf(after, "www")).toEqual(["update"]);
    expect(after.stdout ?? "").toContain("1 to add, 1 to change, 0 to delete: + assets/site.css, ~ index.html");
    expect(opsOf(after, "settings")).toEqual(["update"]);
    const up = await counted(() => site.stack.up());
    expect(up.requests).toEqual({ "PUT /{bucket}/{key}": 3 });
    expect((await readObject(access, "site/index.html")).toString()).toBe(
      await readFile(path.join(www, "index.html"), "utf8"),
    );
    expect(changesOtherThanSame(await site.stack.preview())).toEqual({});
  });

  it("an object deleted outside Pulumi is created again", async () => {
    await deleteOutside(access, "site/settings.json");
    await site.stack.refresh();
    const up = await counted(() => site.stack.up());
    expect(up.requests).toEqual({ "PUT /{bucket}/{key}": 1 });
  });

  it("keeps the key pair's secret out of the exported state", async () => {
    const exported = await site.stack.exportState();
    expect(exported).toContain("secretAccessKey");
    expect(exported).not.toContain(access.secretAccessKey);
  });

  it("`pulumi destroy` deletes the objects, then the bucket", async () => {
    await writeFile(path.join(www, "robots.txt"), "User-agent: *\n");
    await site.stack.destroy();
    expect(await emulatorState(site.emulator)).toMatchObject({ buckets: 0, objects: 0, credentials: 0 });
  });
});
