// Suite "import": cloudplatform-import's discovery of a large project (issue 24), on one emulator
// whose lists answer 3 items a page (so that every bucket's 5 credentials take two pages), grown in
// three steps up to 1,000 buckets, 5,000 credentials and 100 zones. At each size, in rounds of
// rotating order, two processes:
//   command  the command as users run it (`node bin/provider/import/main.js`, settings from the
//            environment): every list through the provider's own calls and answer readers, the
//            names, both files written;
//   lists    the list requests alone (bench/import-lists.mts): the same GETs, every page, the same
//            number of buckets at once, bodies parsed for the bucket ids and nothing else.
// Rows: the command over the lists at the largest size, and how its cost grows: the cost per object
// added in the last step over that of the first (1.00 is linear). Both in CPU seconds of the
// process (user + system): on this shared 2-core machine, wall times of the same run spread by 3×
// while CPU times stay within 10 %; the wall times are in the medians column.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { startEmulatorProcess, type RunningEmulator } from "../scripts/lib/emulator-process.mts";
import { repoRoot } from "../scripts/lib/paths.mts";
import { measureProcess, median, ratio, rotation, type RowResult, type Suite } from "./lib.mts";

type Side = "command" | "lists";

interface Round {
  readonly buckets: number;
  readonly objects: number;
  readonly round: number;
  readonly side: Side;
  readonly seconds: number;
  readonly cpuSeconds: number;
}

const credentialsPerBucket = 5;
const pageSize = 3;
const concurrency = 8;
const objectsOf = (buckets: number) => buckets + buckets * credentialsPerBucket + buckets / 10;

/** Makes buckets [from, to) with their credentials, and a zone per ten buckets, through the management API. */
async function grow(emulator: RunningEmulator, from: number, to: number): Promise<void> {
  const post = async (route: string, body?: object): Promise<{ id: string }> => {
    const res = await fetch(`${emulator.baseUrl}${route}`, {
      method: "POST",
      headers: { authorization: emulator.apiKey, "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    if (!res.ok) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const work: Array<() => Promise<unknown>> = [];
  for (let i = from; i < to; i++) {
    const name = i % 4 === 0 ? `bench.${i}.example` : `bench-${i}`;
    work.push(async () => {
      const bucket = await post("/object-storage/buckets", { name, storage_class: "Standard" });
      for (let k = 0; k < credentialsPerBucket; k++) await post(`/object-storage/buckets/${bucket.id}/credentials`);
    });
    if (i % 10 === 0) work.push(() => post("/dns/zones", { name: `zone-${i}.bench.example` }));
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < work.length) await (work[next++] as () => Promise<unknown>)();
    }),
  );
}

export const importSuite: Suite = {
  name: "import",
  rowIds: ["import-lists", "import-linear"],
  async run(options) {
    const dir = path.join(options.workDir, "import");
    await mkdir(dir, { recursive: true });
    const sizes = options.short ? [100, 200, 400] : [200, 500, 1000];
    const emulator = await startEmulatorProcess(path.join(dir, "emulator.log"), ["--page-size", String(pageSize)]);
    const saved = { base: process.env["CLOUDPLATFORM_BASE_URL"], key: process.env["CLOUDPLATFORM_API_KEY"] };
    // Both processes read the settings from the environment, as the command does outside a project.
    process.env["CLOUDPLATFORM_BASE_URL"] = emulator.baseUrl;
    process.env["CLOUDPLATFORM_API_KEY"] = emulator.apiKey;
    const raw: Round[] = [];
    try {
      let made = 0;
      for (const buckets of sizes) {
        options.log(`import: growing the project to ${buckets} buckets`);
        await grow(emulator, made, buckets);
        made = buckets;
        const args: Record<Side, string[]> = {
          command: [
            path.join(repoRoot, "bin", "provider", "import", "main.js"),
            "--cwd",
            dir,
            "--concurrency",
            String(concurrency),
          ],
          lists: [path.join(repoRoot, "bench", "import-lists.mts"), String(concurrency)],
        };
        for (let round = 1; round <= options.rounds; round++) {
          for (const side of rotation<Side>(["command", "lists"], round)) {
            const used = await measureProcess(process.execPath, args[side], dir);
            const seen = side === "command" ? /\((\d+) objects\)/.exec(used.stdout)?.[1] : undefined;
            if (seen !== undefined && Number(seen) !== objectsOf(buckets)) {
              throw new Error(`the command found ${seen} objects, not ${objectsOf(buckets)}`);
            }
            raw.push({
              buckets,
              objects: objectsOf(buckets),
              round,
              side,
              seconds: used.seconds,
              cpuSeconds: used.cpuSeconds,
            });
          }
        }
      }
    } finally {
      await emulator.stop();
      process.env["CLOUDPLATFORM_BASE_URL"] = saved.base;
      process.env["CLOUDPLATFORM_API_KEY"] = saved.key;
      if (saved.base === undefined) delete process.env["CLOUDPLATFORM_BASE_URL"];
      if (saved.key === undefined) delete process.env["CLOUDPLATFORM_API_KEY"];
    }
    return { rows: rows(raw, sizes), raw };
  },
};

function rows(raw: readonly Round[], sizes: readonly number[]): RowResult[] {
  const of = (buckets: number, side: Side, pick: (r: Round) => number) =>
    median(raw.filter((r) => r.buckets === buckets && r.side === side).map(pick));
  const cpu = (buckets: number, side: Side) => of(buckets, side, (r) => r.cpuSeconds);
  const wall = (buckets: number, side: Side) => of(buckets, side, (r) => r.seconds);
  const paired = (buckets: number) => {
    const rounds = raw.filter((r) => r.buckets === buckets && r.side === "command");
    return median(
      rounds.map((c) => {
        const l = raw.find((r) => r.buckets === buckets && r.side === "lists" && r.round === c.round);
        return c.cpuSeconds / (l?.cpuSeconds ?? Number.NaN);
      }),
    );
  };
  const largest = sizes[sizes.length - 1] as number;
  const [small, middle] = sizes as [number, number];
  /** Seconds per thousand objects between two sizes: what each object added costs. */
  const marginal = (from: number, to: number, side: Side) =>
    ((cpu(to, side) - cpu(from, side)) / (objectsOf(to) - objectsOf(from))) * 1000;
  const growth = (side: Side) => marginal(middle, largest, side) / marginal(small, middle, side);
  const label = (buckets: number) =>
    `${buckets.toLocaleString("en")} buckets + ${(buckets * credentialsPerBucket).toLocaleString("en")} credentials`;
  const discover = cpu(largest, "command") / cpu(largest, "lists");
  return [
    {
      id: "import-lists",
      what: `cloudplatform-import of ${label(largest)} + ${largest / 10} zones (3 a page) / the list requests alone`,
      n: objectsOf(largest),
      now: ratio(discover),
      goal: "≤ 1.25×",
      met: discover <= 1.25,
      detail:
        `CPU ${cpu(largest, "command").toFixed(2)} s vs ${cpu(largest, "lists").toFixed(2)} s (same-round ratio ` +
        `${ratio(paired(largest))}), wall ${wall(largest, "command").toFixed(2)} s vs ${wall(largest, "lists").toFixed(2)} s; ` +
        `at ${label(small)}: CPU ${cpu(small, "command").toFixed(2)} s vs ${cpu(small, "lists").toFixed(2)} s`,
    },
    {
      id: "import-linear",
      what: `CPU per object added, ${label(middle)} → ${label(largest)}, over ${label(small)} → ${label(middle)}`,
      n: objectsOf(largest),
      now: ratio(growth("command")),
      goal: "≤ 1.25× (linear: 1.00×)",
      met: growth("command") <= 1.25,
      detail:
        `the command ${marginal(small, middle, "command").toFixed(3)} then ${marginal(middle, largest, "command").toFixed(3)} ` +
        `CPU s per 1,000 objects; the lists alone ${marginal(small, middle, "lists").toFixed(3)} then ` +
        `${marginal(middle, largest, "lists").toFixed(3)} (${ratio(growth("lists"))}); CPU at each size: ` +
        sizes.map((b) => `${cpu(b, "command").toFixed(2)} s`).join(", "),
    },
  ];
}
