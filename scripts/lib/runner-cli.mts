// Child-process entry of the runner, two ways:
// - `node scripts/lib/runner-cli.mts '<json request>'`: one request. {"op":"prepare","example":
//   "quickstart","parentDir"?,"sourceRoot"?} → {workDir, projectName}; otherwise a RunRequest
//   (runner.mts) → RunResult. The answer is the last stdout line, as JSON; progress goes to stderr.
//   Exit code 0 whenever an answer was printed (the answer says ok or not).
// - `node scripts/lib/runner-cli.mts --serve` (started with an IPC channel): the RunRequests of one
//   stack, one after another, each answered on the channel (runner-serve.mts says when it steps aside).
import { prepareExample, readProjectName } from "./example-workspace.mts";
import { runOperation, type RunRequest } from "./runner.mts";
import { serve } from "./runner-serve.mts";

interface PrepareRequest {
  readonly op: "prepare";
  readonly example: string;
  readonly parentDir?: string;
  /** Where the example's folder is, when not in examples/ (a program a test wrote). */
  readonly sourceRoot?: string;
}

/** How long an operation may take: a wedged engine (e.g. a provider host that never answers) must fail the caller, not hang it. */
const deadlineSeconds = Number(process.env.CLOUDPLATFORM_RUNNER_TIMEOUT_SECONDS ?? 420);

async function runOne(request: RunRequest): Promise<unknown> {
  return runOperation(request, await readProjectName(request.workDir));
}

function once(): void {
  async function main(): Promise<unknown> {
    const request = JSON.parse(process.argv[2] ?? "{}") as PrepareRequest | RunRequest;
    if (request.op === "prepare") return prepareExample(request.example, request.parentDir, request.sourceRoot);
    return runOne(request);
  }

  setTimeout(() => {
    const op = (JSON.parse(process.argv[2] ?? "{}") as { op?: string }).op;
    process.stdout.write(
      `\n${JSON.stringify({ op, ok: false, error: `runner: ${op} did not finish within ${deadlineSeconds} s` })}\n`,
      () => process.exit(0),
    );
  }, deadlineSeconds * 1000).unref();

  main().then(
    (answer) => {
      // The Automation API may leave a gRPC server handle open, hence the exit; but only once the
      // answer is flushed: exiting right after a large write to a pipe cuts it short (a 100-resource
      // stack export is ~300 KB).
      process.stdout.write(`\n${JSON.stringify(answer)}\n`, () => process.exit(0));
    },
    (error: unknown) => {
      process.stderr.write(
        `runner failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

if (process.argv[2] === "--serve") serve(runOne, deadlineSeconds);
else once();
