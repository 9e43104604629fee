// The executable provider ends when its engine is gone (issue 37: after a SIGKILL of the CLI it was
// seen alive 36 minutes later). The built plugin, started as the engine starts it, with a stand-in
// for the engine's address: while something listens there it serves; once nothing does, it exits
// and says why (provider/plugin/engine-watch.ts). The dynamic provider's host is covered by
// interrupted.test.ts, with the real engine killed.
import { spawn } from "node:child_process";
import net from "node:net";
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
