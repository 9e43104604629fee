/**
 * Two gaps of `@pulumi/pulumi/provider`'s gRPC server (SDK 3.270), closed where its handlers are
 * registered, without copying the server:
 * - Configure: the server answers it itself and drops the values (its `Provider` interface has
 *   no configure method), so the provider config would never reach the cores. The request is
 *   handed to `configure` first, then handled as before.
 * - Read: for `pulumi import` the engine sends no `properties`, and the server calls
 *   `getProperties().toJavaScript()` on nothing. An empty Struct is put in their place.
 * The grpc-js copy patched is the one `@pulumi/pulumi` itself loads; the patch is removed as soon
 * as the service is registered.
 */
import { createRequire } from "node:module";
import type { ConfigureRequestLike } from "./configure.js";

interface ReadRequestLike {
  getProperties(): unknown;
  setProperties(value: unknown): void;
}

type Handler<R> = (call: { request: R }, callback: unknown) => void;

interface GrpcServerClass {
  prototype: { addService(service: unknown, implementation: Record<string, unknown>): void };
}

function wrap<R>(implementation: Record<string, unknown>, method: string, before: (request: R) => void): void {
  const handler = implementation[method];
  if (typeof handler !== "function") return;
  const bound = (handler as Handler<R>).bind(implementation);
  implementation[method] = ((call, callback) => {
    before(call.request);
    bound(call, callback);
  }) satisfies Handler<R>;
}

export async function withServerShims<T>(
  configure: (request: ConfigureRequestLike) => void,
  start: () => Promise<T>,
): Promise<T> {
  const fromSdk = createRequire(require.resolve("@pulumi/pulumi/provider/server"));
  const grpc = fromSdk("@grpc/grpc-js") as { Server: GrpcServerClass };
  const { ResourceProviderService } = fromSdk("../proto/provider_grpc_pb") as { ResourceProviderService: unknown };
  const { Struct } = fromSdk("google-protobuf/google/protobuf/struct_pb") as { Struct: new () => unknown };
  const proto = grpc.Server.prototype;
  const original = proto.addService;
  proto.addService = function (this: unknown, service, implementation) {
    if (service === ResourceProviderService) {
      wrap<ConfigureRequestLike>(implementation, "configure", configure);
      wrap<ReadRequestLike>(implementation, "read", (request) => {
        if (request.getProperties() === undefined) request.setProperties(new Struct());
      });
    }
    original.call(this, service, implementation);
  };
  try {
    return await start();
  } finally {
    proto.addService = original;
  }
}
