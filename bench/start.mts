// Suite "start": what loading the provider costs a provider host process. Three Node processes, from
// a folder where the package is installed from its packed tarball (as a program installs it),
// alternating, under /usr/bin/time (CPU = user + system, peak RSS):
//   host       loads @pulumi/pulumi and its dynamic-provider module: what the host loads anyway;
//   provider   the same, then `pulumi-cloudplatform/provider`, configure and a Bucket check: what
//              every provider process does before its first API call;
//   eager-s3   the provider plus @aws-sdk/client-s3: what every process loaded before the S3 client
//              became lazy (only forceDestroy needs it).
import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { exampleDependencies } from "../scripts/lib/example-workspace.mts";
import { measureProcess, median, rotation, type RowResult, type Suite } from "./lib.mts";

type Process = "host" | "provider" | "eager-s3";

interface Round {
  readonly round: number;
  readonly process: Process;
  readonly cpuSeconds: number;
  readonly maxRssMiB: number;
  readonly s3Loaded: boolean;
}

const host = `require("@pulumi/pulumi"); require("@pulumi/pulumi/dynamic");`;
const provider = `
  const p = require("pulumi-cloudplatform/provider");
  const config = { get: (k) => ({ "cloudplatform:baseUrl": "http://127.0.0.1:9", "cloudplatform:apiKey": "cp-unused" })[k] };
  p.bucketProvider.configure({ config }).then(() => p.bucketProvider.check({}, { __logicalName: "logs" }))
`;
const report = `.then(() => console.log(Object.keys(require.cache).some((k) => k.includes("@aws-sdk/client-s3"))))`;
const scripts: Record<Process, string> = {
  host: `${host} console.log(false);`,
  provider: `${host} ${provider} ${report};`,
  "eager-s3": `${host} require("@aws-sdk/client-s3"); ${provider} ${report};`,
};

export const startSuite: Suite = {
  name: "start",
  rowIds: ["provider-start"],
  async run(options) {
    const dir = path.join(options.workDir, "start");
    await mkdir(dir, { recursive: true });
    await symlink(await exampleDependencies(), path.join(dir, "node_modules"), "dir");
    const raw: Round[] = [];
    const rounds = Math.max(options.rounds, 5);
    for (let round = 1; round <= rounds; round++) {
      for (const which of rotation<Process>(["host", "provider", "eager-s3"], round)) {
        const used = await measureProcess(process.execPath, ["-e", scripts[which]], dir);
        raw.push({
          round,
          process: which,
          cpuSeconds: used.cpuSeconds,
          maxRssMiB: used.maxRssMiB,
          s3Loaded: used.stdout.trim() === "true",
        });
      }
    }
    options.log(`start: ${raw.length} processes measured`);
    const of = (which: Process, pick: (r: Round) => number) => median(raw.filter((r) => r.process === which).map(pick));
    const cpu = (which: Process) => of(which, (r) => r.cpuSeconds) - of("host", (r) => r.cpuSeconds);
    const rss = (which: Process) => of(which, (r) => r.maxRssMiB) - of("host", (r) => r.maxRssMiB);
    const loaded = raw.some((r) => r.process === "provider" && r.s3Loaded);
    const row: RowResult = {
      id: "provider-start",
      what: "provider process start (over the host's own SDK)",
      now: `+${cpu("provider").toFixed(2)} s CPU, +${rss("provider").toFixed(0)} MiB; S3 client ${loaded ? "loaded" : "not loaded"}`,
      goal: "S3 client loaded when needed",
      met: !loaded,
      detail:
        `with the S3 client loaded up front: +${cpu("eager-s3").toFixed(2)} s CPU, +${rss("eager-s3").toFixed(0)} MiB; ` +
        `host alone ${of("host", (r) => r.cpuSeconds).toFixed(2)} s CPU, ${of("host", (r) => r.maxRssMiB).toFixed(0)} MiB`,
    };
    return { rows: [row], raw };
  },
};
