// `npm run soak -- [options]`: what runs, how much of it, and what the run produces.
import { parseArgs } from "node:util";
import type { Declaration } from "../support/compare.mts";
import type { SituationName } from "./report.mts";

export interface SoakOptions {
  readonly short: boolean;
  readonly rounds: number;
  readonly lostRounds: number;
  readonly killRounds: number;
  readonly emulatorCycles: number;
  readonly declaration: Declaration;
  readonly seed: number;
  readonly only: ReadonlySet<SituationName>;
  readonly recover?: string;
  readonly json?: string;
  readonly check: boolean;
  readonly keep: boolean;
}

export const usage = `Usage: npm run soak -- [options]

Deploys examples/soak (about 100 resources) with the real Pulumi engine against the emulator under
faults, lost answers and kills, and prints how often the platform ends up holding exactly what the
stack holds (docs/soak.md).

  --short               a few rounds of each (3 / 2 / 2 / 2): the CI-sized run
  --rounds <n>          rounds under 503/429/dropped connections     [20; short 3]
  --lost-rounds <n>     rounds with 3 % of POST answers lost         [3; short 2]
  --kill-rounds <n>     kills of the CLI or the program mid-up       [16; short 2]
  --emulator-cycles <n> emulator kill -9 cycles under 5 write streams [6; short 2]
  --buckets <n>         buckets in the program (half auto-named)     [30]
  --credentials <n>     credentials per bucket                       [2]
  --zones <n>           DNS zones in the program                     [8]
  --only <list>         situations to run: faults,lost,kills,emulator,tests [all]
                        (tests: the end-to-end files of fault loops and kills, which
                        \`npm test\` leaves to the soak, run beside the rounds)
  --recover <command>   the one recovery command run after a kill (and \`pulumi cancel\`), before \`up\`;
                        runs in the program's directory with the stack selected; "{stack}" is replaced
                        by the stack's name                        [none]
  --seed <n>            replays the soak's own random choices (kill moments and victims)
  --json <file>         writes every round's record there
  --check               exit 1 when a goal of issue 11 is missed
  --keep                keep the temporary directory (stacks, emulator data and logs)
  --help
`;

const situations: readonly SituationName[] = ["faults", "lost", "kills", "emulator", "tests"];

export class UsageError extends Error {}

function count(name: string, raw: string | undefined, fallback: number, min = 0): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(n) || n < min)
    throw new UsageError(`--${name}: "${raw}" is not a whole number ≥ ${min}`);
  return n;
}

export function parseOptions(argv: readonly string[]): SoakOptions | "help" {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        short: { type: "boolean" },
        rounds: { type: "string" },
        "lost-rounds": { type: "string" },
        "kill-rounds": { type: "string" },
        "emulator-cycles": { type: "string" },
        buckets: { type: "string" },
        credentials: { type: "string" },
        zones: { type: "string" },
        only: { type: "string" },
        recover: { type: "string" },
        seed: { type: "string" },
        json: { type: "string" },
        check: { type: "boolean" },
        keep: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const short = values.short === true;
  const only = new Set<SituationName>();
  for (const name of (values.only ?? situations.join(",")).split(",").map((s) => s.trim())) {
    if (!(situations as readonly string[]).includes(name))
      throw new UsageError(`--only: "${name}" is not one of ${situations.join(", ")}`);
    only.add(name as SituationName);
  }
  if (values.recover !== undefined && values.recover.trim() === "")
    throw new UsageError("--recover: the command is empty");
  return {
    short,
    rounds: count("rounds", values.rounds, short ? 3 : 20),
    lostRounds: count("lost-rounds", values["lost-rounds"], short ? 2 : 3),
    killRounds: count("kill-rounds", values["kill-rounds"], short ? 2 : 16),
    emulatorCycles: count("emulator-cycles", values["emulator-cycles"], short ? 2 : 6),
    declaration: {
      buckets: count("buckets", values.buckets, 30),
      credentialsPerBucket: count("credentials", values.credentials, 2),
      zones: count("zones", values.zones, 8),
      namePrefix: "soak",
    },
    seed: count("seed", values.seed, Math.floor(Math.random() * 2 ** 31)),
    only,
    ...(values.recover === undefined ? {} : { recover: values.recover }),
    ...(values.json === undefined ? {} : { json: values.json }),
    check: values.check === true,
    keep: values.keep === true,
  };
}

/** One deployment the soak runs beside the others, with its own emulator and stacks. */
export interface Lane {
  readonly name: "faults" | "lost" | "kills";
  /** Its stream of random choices: `--seed` plus this. */
  readonly seedOffset: number;
  /** The rounds it plays, first to last, of the situation's `rounds`. */
  readonly first: number;
  readonly last: number;
  readonly rounds: number;
}

/**
 * The deployments that run side by side. A round under faults takes the longest (50 to 225 s
 * against 20 to 25 for lost answers and 25 to 45 for a kill, short size, CI at 49dc904: each of its
 * 429s pauses every call for a second) and the situation has the most rounds, so three lanes share
 * its rounds: with two, the lane of two rounds ran 315 s of the short soak's 346, most of it
 * waiting, on a machine with a core to spare. The other situations get one lane each.
 */
export const faultLanes = 3;

export function lanesOf(options: SoakOptions): Lane[] {
  const lanes: Lane[] = [];
  const add = (name: Lane["name"], rounds: number, seedOffset: number, first = 1, last = rounds) => {
    if (options.only.has(name) && first <= last) lanes.push({ name, seedOffset, first, last, rounds });
  };
  // Lane k plays rounds (k - 1) * n / lanes + 1 to k * n / lanes, rounded up: 3 → 1, 1, 1; 20 → 7, 7, 6.
  const end = (k: number) => Math.min(options.rounds, Math.ceil((k * options.rounds) / faultLanes));
  add("faults", options.rounds, 1, 1, end(1));
  add("lost", options.lostRounds, 2);
  add("kills", options.killRounds, 3);
  for (let k = 2; k <= faultLanes; k++) add("faults", options.rounds, 2 + k, end(k - 1) + 1, end(k));
  return lanes;
}
