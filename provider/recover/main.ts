#!/usr/bin/env node
/**
 * `cloudplatform-recover` (package.json `bin`): after a deployment was interrupted on a machine whose
 * recovery journal is gone (a CI runner), run it after `pulumi cancel` and before `pulumi up`, in the
 * program's directory. It reads the stack's pending creates, finds on the platform the objects they
 * made that the stack does not hold, and deletes them (with `--yes`), so that the next `pulumi up`
 * leaves nothing behind. Without `--yes` it only shows what it would do, as `pulumi up` does in a
 * pipeline. See plan.ts for what it deletes and what it leaves to the user, and the README, "When a
 * deployment is interrupted".
 */
import { parseArgs } from "node:util";
import { deleteCredential, listCredentials } from "../platform/bucket-credential/api.js";
import { deleteBucket, findBucketByName } from "../platform/bucket/api.js";
import { deleteZone, listZones } from "../platform/dns-zone/api.js";
import { ApiClient, closePools } from "../client.js";
import { resolveSettings } from "../config.js";
import { hasCode } from "../errors.js";
import { pulumi, runCommand, stackConfig } from "../pulumi-cli.js";
import { plan, readStack, type Action, type PlatformView } from "./plan.js";

const usage = `Usage: cloudplatform-recover [--stack <name>] [--cwd <dir>] [--yes] [--delete <bucketId>/<accessKeyId>,...]

After a \`pulumi up\` of a pulumi-cloudplatform program was interrupted on another machine (its
recovery journal gone with it): run \`pulumi cancel\` if the CLI asks, then this, then \`pulumi up\`.
It deletes the objects the interrupted creates made that the stack does not hold.

  --stack <name>   the stack (default: the selected one)
  --cwd <dir>      the program's directory (default: the current one)
  --yes            delete them; without it, only show what would be deleted
  --delete <ids>   also delete these credentials (<bucketId>/<accessKeyId>, comma-separated), when
                   recovery asks you to choose
  --help

Settings are read as the provider reads them: the stack's cloudplatform:* config, then the
CLOUDPLATFORM_* environment variables.`;

interface Options {
  readonly stack: string | undefined;
  readonly cwd: string;
  readonly yes: boolean;
  readonly explicit: readonly { bucketId: string; accessKeyId: string }[];
}

function options(argv: readonly string[]): Options | "help" {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      stack: { type: "string" },
      cwd: { type: "string" },
      yes: { type: "boolean", short: "y" },
      delete: { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) return "help";
  const explicit = (values.delete ?? [])
    .flatMap((v) => v.split(","))
    .filter((v) => v.trim() !== "")
    .map((v) => {
      const [bucketId, accessKeyId, ...rest] = v.trim().split("/");
      if (!bucketId || !accessKeyId || rest.length > 0) throw new Error(`--delete ${v}: use <bucketId>/<accessKeyId>`);
      return { bucketId, accessKeyId };
    });
  return { stack: values.stack, cwd: values.cwd ?? process.cwd(), yes: values.yes === true, explicit };
}

/** The end of the stack's last finished deployment (epoch ms), if any. */
function lastEnd(history: string): number | undefined {
  try {
    const updates: unknown = JSON.parse(history);
    const first = Array.isArray(updates) ? (updates[0] as { endTime?: unknown } | undefined) : undefined;
    const end = first?.endTime;
    if (typeof end === "number") return end < 1e11 ? end * 1000 : end;
    return typeof end === "string" ? Date.parse(end) : undefined;
  } catch {
    return undefined;
  }
}

function describe(a: Action): string {
  switch (a.kind) {
    case "bucket":
      return `bucket "${a.name}" (${a.id})`;
    case "zone":
      return `zone "${a.name}" (${a.id})`;
    case "credential":
      return `credential ${a.accessKeyId} of bucket ${a.bucketId}`;
  }
}

/** Deletes one object; a failure is the user's to settle, said in words. */
async function execute(client: ApiClient, a: Action): Promise<string | undefined> {
  try {
    if (a.kind === "bucket") await deleteBucket(client, a.id);
    else if (a.kind === "zone") await deleteZone(client, a.id);
    else await deleteCredential(client, a.bucketId, a.accessKeyId);
    return undefined;
  } catch (err) {
    if (a.kind === "bucket" && hasCode(err, "CLOUDPLATFORM_CONFLICT")) {
      return (
        `${a.resource}: bucket "${a.name}" (${a.id}) holds objects, so it was not deleted. Empty it and run this again, ` +
        "or set adopt: true on the resource to keep it."
      );
    }
    throw err;
  }
}

export async function main(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const opts = options(argv);
  if (opts === "help") {
    out(usage);
    return 0;
  }
  const exported: unknown = JSON.parse(await pulumi(opts, ["stack", "export"]));
  const stack = readStack(exported, lastEnd(await pulumi(opts, ["stack", "history", "--json", "--page-size", "1"])));
  if (stack.pending.length === 0 && opts.explicit.length === 0) {
    out("cloudplatform-recover: the stack has no pending creates of pulumi-cloudplatform resources; nothing to do.");
    return 0;
  }
  const config = await stackConfig(opts);
  const settings = resolveSettings(
    (key) => config[key],
    (m) => out(`warning: ${m}`),
  );
  const client = new ApiClient(settings, { onRetry: (m) => out(`warning: ${m}`) });
  const platform: PlatformView = {
    bucketNamed: (name) => findBucketByName(client, name),
    zoneNamed: async (name) => (await listZones(client, name))[0],
    credentialsOf: (bucketId) => listCredentials(client, bucketId),
  };
  const result = await plan(stack, platform, opts.explicit);
  out(`cloudplatform-recover: ${stack.pending.length} create(s) were in flight when the deployment stopped.`);
  for (const note of result.notes) out(`  note: ${note}`);
  const decisions = [...result.decisions];
  if (result.deletions.length === 0) out("  nothing the interrupted creates made is left on the platform.");
  for (const a of result.deletions) {
    if (!opts.yes) {
      out(`  would delete ${describe(a)}: made by ${a.resource}, not held by the stack`);
      continue;
    }
    const problem = await execute(client, a);
    if (problem === undefined) out(`  deleted ${describe(a)}: made by ${a.resource}, not held by the stack`);
    else decisions.push(problem);
  }
  for (const d of decisions) out(`  to decide: ${d}`);
  if (!opts.yes && result.deletions.length > 0) {
    out(
      `dry run: nothing was deleted. Run again with --yes to delete ${result.deletions.length} object(s), then \`pulumi up\`.`,
    );
  } else if (decisions.length === 0) {
    out("done: run `pulumi up`.");
  }
  return decisions.length === 0 ? 0 : 1;
}

if (require.main === module) runCommand("cloudplatform-recover", main, closePools);
