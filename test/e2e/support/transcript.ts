// What the Transcript e2e test needs beyond the shared harness: an emulator that may fetch from
// loopback, speech made with espeak-ng, a loopback server that serves the media and receives the
// webhook, the emulator's balance, and the stack's state as exported.
import { once } from "node:events";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { silentLogger, startEmulator } from "../../../emulator/src/index.js";
import type { Emulator } from "../../support/emulator.js";
import { runProgram, type Tool } from "../../support/tools.mts";
import type { Config, ExampleStack } from "../../support/runner.js";
import { Platform } from "../../support/platform.mts";

/**
 * espeak-ng makes the speech; the emulator converts it with ffmpeg and transcribes it with
 * pocketsphinx (without them it would answer a placeholder text, which is not what this test shows).
 */
export const transcriptTools: readonly Tool[] = ["espeak-ng", "ffmpeg", "pocketsphinx"];

/**
 * Loopback media and webhooks are refused by the platform; the emulator lets them through for tests.
 * No synchronous wait: every create answers 202, so the provider's polling runs under the real
 * engine (the 200-at-once path is the same as every other resource's create, and unit-tested).
 */
export function launchTranscriptEmulator(): Promise<Emulator> {
  return startEmulator({ logger: silentLogger, allowLoopbackUrls: true, syncWaitMs: 0 });
}

/** Stack config of examples/transcript: `undefined` leaves a key out of this call. */
export function transcriptConfig(settings: Record<string, string | undefined>): Config {
  return Object.fromEntries(
    Object.entries(settings)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([key, value]) => [`cloudplatform-transcript:${key}`, { value }]),
  );
}

export const transcriptKey = (key: string): string => `cloudplatform-transcript:${key}`;

/** Writes `words` spoken by espeak-ng to `file` (a WAV); returns the file. */
export async function speak(file: string, words: string): Promise<string> {
  await runProgram("espeak-ng", ["-v", "en-us", "-s", "150", "-w", file, words]);
  if ((await stat(file)).size < 1000) throw new Error(`espeak-ng wrote almost nothing to ${file}`);
  return file;
}

export interface ReceivedHook {
  readonly path: string;
  readonly body: unknown;
}

/** A loopback HTTP server: GET /media/<name> serves files of `mediaDir`; POST /hooks/* is recorded. */
export class LoopbackReceiver {
  private constructor(
    private readonly server: Server,
    readonly origin: string,
    /** Every webhook call received, in order. */
    readonly hooks: readonly ReceivedHook[],
  ) {}

  static async start(mediaDir: string): Promise<LoopbackReceiver> {
    const hooks: ReceivedHook[] = [];
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (req.method === "GET" && url.pathname.startsWith("/media/")) {
        const file = path.join(mediaDir, path.basename(url.pathname));
        stat(file).then(
          (s) => {
            res.writeHead(200, { "content-type": "audio/wav", "content-length": s.size });
            createReadStream(file).pipe(res);
          },
          () => res.writeHead(404).end(),
        );
        return;
      }
      if (req.method === "POST" && url.pathname.startsWith("/hooks/")) {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // Kept as text: the assertion on the body then says what arrived.
          }
          hooks.push({ path: url.pathname, body });
          res.writeHead(204).end();
        });
        return;
      }
      res.writeHead(404).end();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return new LoopbackReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hooks);
  }

  mediaUrl(name: string): string {
    return `${this.origin}/media/${name}`;
  }
  hookUrl(name: string): string {
    return `${this.origin}/hooks/${name}`;
  }
  hooksAt(name: string): ReceivedHook[] {
    return this.hooks.filter((h) => h.path === `/hooks/${name}`);
  }

  /** Waits until `count` calls reached `name`, then `settleMs` more so that an extra call would be seen. */
  async waitForHooks(name: string, count: number, settleMs = 1_500, timeoutMs = 20_000): Promise<ReceivedHook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.hooksAt(name).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, settleMs));
    return this.hooksAt(name);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function balance(emulator: Emulator): Promise<number> {
  return new Platform(emulator).balance();
}

export function setBalance(emulator: Emulator, usd: number): Promise<void> {
  return new Platform(emulator).setBalance(usd);
}

/** A transcript as the platform reports it, read with the dashboard token. */
export async function platformTranscript(emulator: Emulator, id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${emulator.apiUrl}/v1/transcripts/${encodeURIComponent(id)}`, {
    headers: { authorization: `Bearer ${emulator.token}` },
  });
  if (!response.ok) throw new Error(`GET /v1/transcripts/${id} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

export interface StateResource {
  readonly urn: string;
  readonly type: string;
  readonly id?: string;
  readonly outputs?: Record<string, unknown>;
}

/** The Transcript resources in the stack's state (`pulumi stack export`). */
export async function transcriptsInState(stack: ExampleStack): Promise<StateResource[]> {
  const exported = JSON.parse(await stack.exportState()) as { deployment: { resources?: StateResource[] } };
  return (exported.deployment.resources ?? []).filter((r) => r.type.endsWith(":Transcript"));
}

/** The spec's price: US$ 0.02 per hour, per started minute. */
export function expectedPrice(seconds: number): number {
  return (Math.ceil(seconds / 60) * 0.02) / 60;
}
