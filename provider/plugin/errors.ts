/**
 * Errors as the executable host reports them: prefixed with `<Type> "<name>"` once, redacted, and
 * a `PartialCreateError` turned into the shape `@pulumi/pulumi/provider` sends as
 * ErrorResourceInitFailed (`{ id, properties, reasons }`), so the engine keeps the object in state.
 */
import { CloudPlatformError, PartialCreateError } from "../errors.js";
import { redact } from "../redact.js";
import { encode } from "./wire.js";

export function annotate(err: unknown, type: string, name: string): unknown {
  if (CloudPlatformError.isInstance(err)) {
    if (name !== "") err.forResource(type, name);
    err.message = redact(err.message);
    return err;
  }
  if (err instanceof Error) err.message = redact(name === "" ? err.message : `${type} "${name}": ${err.message}`);
  return err;
}

export class ResourceInitError extends Error {
  readonly id: string;
  readonly properties: object;
  readonly reasons: string[];
  constructor(message: string, id: string, properties: object, reasons: readonly string[]) {
    super(message);
    this.id = id;
    this.properties = properties;
    this.reasons = reasons.map(redact);
  }
}

function isPartial(err: unknown): err is PartialCreateError {
  return (
    err instanceof PartialCreateError || (CloudPlatformError.isInstance(err) && err.code === "CLOUDPLATFORM_PARTIAL")
  );
}

/** For create and update: partial state keeps its secrets marked. */
export function hostError(err: unknown, type: string, name: string, secretKeys: Iterable<string>): unknown {
  const annotated = annotate(err, type, name);
  if (!isPartial(annotated)) return annotated;
  return new ResourceInitError(annotated.message, annotated.id, encode(annotated.outs, secretKeys), annotated.reasons);
}
