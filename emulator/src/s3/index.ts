import type { IncomingMessage, ServerResponse } from "node:http";
import type { S3Plane, S3PlaneOptions } from "../interfaces.js";

/** The S3 data plane: path-style S3 over plain node:http, verifying SigV4 on every request. */
export function createS3Plane(opts: S3PlaneOptions): S3Plane {
  void opts;
  return {
    handle(_req: IncomingMessage, res: ServerResponse): void {
      res.statusCode = 501;
      res.end();
    },
    objects: {
      isEmpty: async () => true,
      dropBucket: async () => undefined,
      countObjects: async () => 0,
      reset: async () => undefined,
    },
    close: async () => undefined,
  };
}
