import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { call, withEmulator } from "./helpers.js";

// A request body that stops arriving must not hold its connection for good (issue 11); slow bodies still pass.

/** Writes a request by hand; resolves with the raw answer once the server closes the connection. */
function exchange(url: string, write: (socket: Socket) => Promise<void>): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((done, fail) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("close", () => done(answer));
    socket.on("error", fail);
    socket.once("connect", () => void write(socket).catch(fail));
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("body idle timeout", () => {
  it("answers 408 and closes a request whose body stops arriving", async () => {
    await withEmulator(
      async (emu) => {
        const started = performance.now();
        const answer = await exchange(emu.baseUrl, async (socket) => {
          socket.write(
            `POST /dns/zones HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${emu.apiKey}\r\n` +
              "content-type: application/json\r\ncontent-length: 100\r\n\r\n" +
              '{"name":',
          );
        });
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(answer).toContain('"code":"request_timeout"');
        expect(answer.toLowerCase()).toContain("connection: close");
        expect(performance.now() - started).toBeLessThan(5_000);
        expect((await call(emu, "GET", "/dns/zones")).body).toEqual([]);
      },
      { bodyIdleTimeoutMs: 300 },
    );
  });

  it("frees the connection of a stalled body on the S3 port too, also after an early answer", async () => {
    await withEmulator(
      async (emu) => {
        const answer = await exchange(emu.s3Url, async (socket) => {
          socket.write("PUT /some-bucket/key HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 1000\r\n\r\nabc");
        });
        // Refused before its body was read; the 997 bytes still owed must not keep the socket open.
        expect(answer).toMatch(/^HTTP\/1\.1 403 /);
        expect(answer).toContain("<Error><Code>AccessDenied</Code>");
      },
      { bodyIdleTimeoutMs: 300 },
    );
  });

  it("lets a body through that trickles for longer than the window but never stalls for it", async () => {
    await withEmulator(
      async (emu) => {
        const body = Buffer.from(`{"name": "trickle.example"${" ".repeat(30)}}`);
        const answer = await exchange(emu.baseUrl, async (socket) => {
          socket.write(
            `POST /dns/zones HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${emu.apiKey}\r\n` +
              `content-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
          );
          // About 1.2 s in all against a 400 ms window: each pause is well inside it.
          for (let i = 0; i < body.length; i += 4) {
            socket.write(body.subarray(i, i + 4));
            await pause(100);
          }
        });
        expect(answer).toMatch(/^HTTP\/1\.1 201 /);
        expect(answer).toContain('"name":"trickle.example"');
      },
      { bodyIdleTimeoutMs: 400 },
    );
  });
  it("leaves nothing behind on a keep-alive connection, one request with a body after another", async () => {
    // Each watch used to leave a 'close' listener on the socket: with a client's keep-alive pool,
    // a leak per request and Node's MaxListeners warning after the tenth.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await withEmulator(async (emu) => {
        const { hostname, port } = new URL(emu.baseUrl);
        const reused: boolean[] = [];
        for (let i = 0; i < 30; i++) {
          const body = JSON.stringify({ name: `keepalive-${i}.example` });
          const status = await new Promise<number>((done, fail) => {
            const req = request(
              {
                host: hostname,
                port,
                method: "POST",
                path: "/dns/zones",
                agent,
                headers: { authorization: emu.apiKey, "content-type": "application/json" },
              },
              (res) => {
                res.resume();
                res.on("end", () => done(res.statusCode ?? 0));
              },
            );
            req.on("error", fail);
            req.end(body);
            reused.push(req.reusedSocket);
          });
          expect(status).toBe(201);
        }
        expect(reused.filter(Boolean)).toHaveLength(29);
      });
      // Warnings are emitted on the next tick.
      await pause(10);
      expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
    } finally {
      agent.destroy();
      process.off("warning", onWarning);
    }
  });
});
