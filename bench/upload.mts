// Suite "upload": the Transcript upload path (provider/resources/transcript/upload.ts, built) against
// `curl -T`, both a streaming PUT of the same file to a fresh uploadUrl of the same emulator
// (docs/api-contract.md §8.1), alternating. Throughput compares the transfers themselves: the upload's
// own time inside its Node process (the provider runs it in the host process, already started) and
// curl's `time_total`. Memory is the peak RSS the upload adds over a Node process that only loads
// the module (what the runtime costs by itself), from /usr/bin/time.
import { open } from "node:fs/promises";
import path from "node:path";
import { startEmulatorProcess, type RunningEmulator } from "../scripts/lib/emulator-process.mts";
import { repoRoot } from "../scripts/lib/paths.mts";
import { measureProcess, median, ratio, rotation, type RowResult, type Suite } from "./lib.mts";

type Uploader = "provider" | "curl" | "node-idle";

interface Round {
  readonly round: number;
  readonly sizeMiB: number;
  readonly uploader: Uploader;
  /** The transfer's own seconds (undefined for node-idle). */
  readonly transferSeconds?: number;
  /** The whole process: start, upload, exit. */
  readonly processSeconds: number;
  readonly maxRssMiB: number;
}

async function newUploadUrl(emulator: RunningEmulator): Promise<string> {
  const res = await fetch(`${emulator.apiUrl}/v1/transcripts/upload`, {
    method: "POST",
    headers: { authorization: emulator.apiKey, "content-type": "application/json" },
    body: "{}",
  });
  if (!res.ok) throw new Error(`POST /v1/transcripts/upload answered ${res.status}`);
  const body = (await res.json()) as { uploadUrl?: string; upload_url?: string };
  return body.uploadUrl ?? body.upload_url ?? "";
}

/**
 * A sparse-free file of pseudo-random bytes (written, so the page cache holds real data), synced to
 * disk: otherwise the kernel writes it back during the first transfer of round 1, which rotation
 * always gives to the provider.
 */
async function writeFile(file: string, mib: number): Promise<void> {
  const handle = await open(file, "w");
  try {
    const block = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < mib; i++) {
      for (let j = 0; j < block.length; j += 65536) block.set(crypto.getRandomValues(new Uint8Array(65536)), j);
      await handle.write(block);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function measure(uploader: Uploader, file: string, emulator: RunningEmulator) {
  const upload = path.join(repoRoot, "bench", "upload-provider.js");
  switch (uploader) {
    case "provider": {
      const used = await measureProcess(process.execPath, [upload, await newUploadUrl(emulator), file]);
      return { ...used, transferSeconds: Number(used.stdout.trim()) };
    }
    case "curl": {
      const url = await newUploadUrl(emulator);
      const used = await measureProcess("curl", ["-fsS", "-o", "/dev/null", "-w", "%{time_total}", "-T", file, url]);
      return { ...used, transferSeconds: Number(used.stdout.trim()) };
    }
    case "node-idle":
      return measureProcess(process.execPath, [
        "-e",
        `require(${JSON.stringify(path.join(repoRoot, "bin/provider/resources/transcript/upload.js"))})`,
      ]);
  }
}

export const uploadSuite: Suite = {
  name: "upload",
  rowIds: ["upload-256", "upload-1024"],
  async run(options) {
    const sizes = options.short ? [256] : [256, 1024];
    const emulator = await startEmulatorProcess(path.join(options.workDir, "upload-emulator.log"), [
      "--data-dir",
      path.join(options.workDir, "upload-data"),
    ]);
    const raw: Round[] = [];
    try {
      // Untimed, so that no measured transfer (round 1's first is the provider's) pays for the
      // emulator's first upload, whose receiving code runs for the first time.
      const warmUpFile = path.join(options.workDir, "warm-up.bin");
      await writeFile(warmUpFile, 16);
      await measure("curl", warmUpFile, emulator);
      for (const sizeMiB of sizes) {
        const file = path.join(options.workDir, `audio-${sizeMiB}.bin`);
        await writeFile(file, sizeMiB);
        for (let round = 1; round <= options.rounds; round++) {
          for (const uploader of rotation<Uploader>(["provider", "curl", "node-idle"], round)) {
            const used = await measure(uploader, file, emulator);
            raw.push({
              round,
              sizeMiB,
              uploader,
              transferSeconds: "transferSeconds" in used ? used.transferSeconds : undefined,
              processSeconds: used.seconds,
              maxRssMiB: used.maxRssMiB,
            });
          }
          const mine = raw.filter((r) => r.round === round && r.sizeMiB === sizeMiB);
          options.log(
            `upload ${sizeMiB} MiB round ${round}/${options.rounds}: ` +
              mine.map((r) => `${r.uploader} ${(r.transferSeconds ?? r.processSeconds).toFixed(2)} s`).join(", "),
          );
        }
      }
    } finally {
      await emulator.stop();
    }
    const rows: RowResult[] = sizes.map((sizeMiB) => {
      const of = (who: Uploader, pick: (r: Round) => number) =>
        median(raw.filter((r) => r.sizeMiB === sizeMiB && r.uploader === who).map(pick));
      const provider = of("provider", (r) => r.transferSeconds!);
      const curl = of("curl", (r) => r.transferSeconds!);
      const value = curl / provider;
      const added = of("provider", (r) => r.maxRssMiB) - of("node-idle", (r) => r.maxRssMiB);
      return {
        id: `upload-${sizeMiB}`,
        what: `Transcript upload vs curl -T, ${sizeMiB} MiB (throughput; memory the upload adds)`,
        now: `${ratio(value)}, +${added.toFixed(0)} MiB`,
        goal: "≥ 0.90×, flat memory",
        met: value >= 0.9,
        detail:
          `provider ${(sizeMiB / provider).toFixed(0)} MiB/s, curl ${(sizeMiB / curl).toFixed(0)} MiB/s; ` +
          `whole processes ${of("provider", (r) => r.processSeconds).toFixed(2)} s vs ${of("curl", (r) => r.processSeconds).toFixed(2)} s; ` +
          `peak RSS ${of("provider", (r) => r.maxRssMiB).toFixed(0)} MiB (idle Node ${of("node-idle", (r) => r.maxRssMiB).toFixed(0)}, curl ${of("curl", (r) => r.maxRssMiB).toFixed(0)})`,
      };
    });
    return { rows, raw };
  },
};
