// A provider process ends with its engine (provider/plugin/engine-watch.ts): on a change of parent,
// on an engine address that refuses connections, and never on a sign that is not certain.
import { EventEmitter } from "node:events";
import net from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { engineListens, exitWhenOutputBreaks, hostAndPort, watchEngine } from "../../provider/plugin/engine-watch.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("hostAndPort", () => {
  it("reads the engine's address forms and refuses what is not one", () => {
    expect(hostAndPort("127.0.0.1:4000")).toEqual({ host: "127.0.0.1", port: 4000 });
    expect(hostAndPort("[::1]:4000")).toEqual({ host: "::1", port: 4000 });
    expect(hostAndPort("localhost:0")).toBeUndefined();
    expect(hostAndPort("4000")).toBeUndefined();
  });
});

describe("engineListens", () => {
  it("is true while a server listens at the address and false once it is closed", async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    expect(await engineListens(address)).toBe(true);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await engineListens(address)).toBe(false);
  });
});

describe("watchEngine", () => {
  it("ends once, when the parent changes, and not before", () => {
    vi.useFakeTimers();
    let parent = 100;
    const gone = vi.fn();
    watchEngine({ address: undefined, onGone: gone, parentPid: () => parent });
    vi.advanceTimersByTime(5_000);
    expect(gone).not.toHaveBeenCalled();
    parent = 1;
    vi.advanceTimersByTime(1_000);
    vi.advanceTimersByTime(5_000);
    expect(gone.mock.calls).toEqual([["its parent process 100 ended (now 1)"]]);
  });

  it("ends when the address refuses, probing only every few checks, and stays on an alive answer", async () => {
    vi.useFakeTimers();
    let listens = true;
    const probe = vi.fn(() => Promise.resolve(listens));
    const gone = vi.fn();
    watchEngine({ address: "127.0.0.1:4000", onGone: gone, parentPid: () => 100, probe, probeEvery: 5 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probe).toHaveBeenCalledTimes(2);
    expect(gone).not.toHaveBeenCalled();
    listens = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(gone.mock.calls).toEqual([["the engine's address 127.0.0.1:4000 refuses connections"]]);
  });

  it("stops watching when asked", () => {
    vi.useFakeTimers();
    let parent = 100;
    const gone = vi.fn();
    const stop = watchEngine({ address: undefined, onGone: gone, parentPid: () => parent });
    stop();
    parent = 1;
    vi.advanceTimersByTime(5_000);
    expect(gone).not.toHaveBeenCalled();
  });
});

describe("exitWhenOutputBreaks", () => {
  const failure = (code: string) => Object.assign(new Error(code), { code });

  it("ends the process when its output's reader is gone, and drops any other error of the stream", () => {
    const stdout = new EventEmitter();
    const stderr = new EventEmitter();
    const exit = vi.fn();
    exitWhenOutputBreaks([stdout, stderr], exit);
    // Without a listener, emit("error") throws: an uncaught error the host would print again.
    expect(() => stderr.emit("error", failure("EAGAIN"))).not.toThrow();
    expect(exit).not.toHaveBeenCalled();
    stderr.emit("error", failure("EPIPE"));
    expect(exit).toHaveBeenCalledTimes(1);
    stdout.emit("error", failure("ERR_STREAM_DESTROYED"));
    expect(exit).toHaveBeenCalledTimes(2);
  });
});
