// The executable provider ends when its engine is gone (issue 37: after a SIGKILL of the CLI it was
// seen alive 36 minutes later). The built plugin, started as the engine starts it, with a stand-in
// for the engine's address: while something listens there it serves; once nothing does, it exits
// and says why (provider/plugin/engine-watch.ts). The dynamic provider's host is covered by
// interrupted.test.ts, with the real engine killed, and below for what it prints once the engine is gone.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const launcher = path.resolve(__dirname, "..", "..", "bin", "provider", "plugin", "launcher.js");

describe("pulumi-resource-cloudplatform", () => {
  it("serves while its engine's address listens and exits once it refuses", async () => {
    const engine = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const address = `127.0.0.1:${(engine.address() as net.AddressInfo).port}`;
    const plugin = spawn(process.execPath, [launcher, address], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    plugin.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => plugin.once("exit", (code) => resolve(code)));
    try {
      // The engine reads the plugin's port from its first line of output: it is up and serving.
      const port = await new Promise<string>((resolve, reject) => {
        plugin.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
        void exited.then((code) => reject(new Error(`the plugin exited (${code}) before serving: ${stderr}`)));
      });
      expect(port).toMatch(/^\d+$/);
      // Several of its checks pass while the engine listens: it stays.
      const early = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("alive"), 7_000))]);
      expect(early, stderr).toBe("alive");
      await new Promise<void>((resolve) => engine.close(() => resolve()));
      const ended = Date.now();
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("alive"), 20_000))]);
      expect(code, stderr).toBe(1);
      expect(Date.now() - ended).toBeLessThan(20_000);
      expect(stderr).toContain(
        `pulumi-resource-cloudplatform: exiting, the Pulumi engine is gone: the engine's address ${address} refuses connections`,
      );
    } finally {
      plugin.kill("SIGKILL");
      engine.close();
    }
  }, 60_000);
});

// @pulumi/pulumi's dynamic provider host prints each uncaught error to stderr. After a SIGKILL of the
// CLI nobody reads it: the print fails (EPIPE), that failure is uncaught and printed in turn, a loop
// that never yields to timers, so the engine watch never ran again (seen: a host at full CPU, 4.3 GB,
// 12 minutes after its CLI was killed). The real host, run from a file where the engine's launcher
// puts it (the provider only guards that host), our provider loaded in it as a provider text loads
// it; the engine's stand-in keeps listening, so what ends the host is its broken output.
describe("the dynamic provider's host, its engine gone", () => {
  it("exits at its first print to the engine's closed pipes, instead of printing its failure forever", async () => {
    const engine = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const address = `127.0.0.1:${(engine.address() as net.AddressInfo).port}`;
    const root = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-e2e-host-"));
    const hostFile = path.join(root, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider", "index.js");
    await mkdir(path.dirname(hostFile), { recursive: true });
    const realHost = require.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
    const provider = path.resolve(__dirname, "..", "..", "bin", "provider", "index.js");
    await writeFile(
      hostFile,
      [
        `require(${JSON.stringify(realHost)}); // its handlers of uncaught errors, its gRPC server`,
        `require(${JSON.stringify(provider)});`,
        // An error nobody handles, as a failed call to the gone engine makes one: the host prints it.
        `process.on("SIGUSR2", () => void Promise.reject(new Error("after the engine")));`,
      ].join("\n"),
    );
    const host = spawn(process.execPath, [hostFile, address], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => host.once("exit", (code) => resolve(code)));
    try {
      // The host prints its port when it serves.
      await new Promise<void>((resolve, reject) => {
        host.stdout.once("data", () => resolve());
        void exited.then((code) => reject(new Error(`the host exited (${code}) before serving`)));
      });
      // The CLI is gone: nobody reads the host's output any more.
      host.stdout.destroy();
      host.stderr.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      host.kill("SIGUSR2");
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("alive"), 10_000))]);
      expect(code, "the host was still running 10 s after its first print to a closed pipe").toBe(1);
    } finally {
      host.kill("SIGKILL");
      engine.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
