import type { TranscriptionOptions, TranscriptionService } from "../interfaces.js";

export function createTranscriptionService(opts: TranscriptionOptions): TranscriptionService {
  let balance = opts.initialBalanceUsd;
  return {
    async handle(_req, res) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "not_found", message: "no such route" } }));
    },
    getBalance: () => balance,
    setBalance: (usd) => {
      balance = usd;
    },
    countTranscripts: () => 0,
    reset: async () => {},
    close: async () => {},
  };
}
