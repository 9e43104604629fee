/**
 * A bucket's contents are written by the S3 layer (provider/s3/objects.ts), below every resource.
 * This module re-exports it for the benchmarks that time the provider's own upload path
 * (bench/object-provider.js loads bin/provider/resources/bucket-object/api.js);
 * the provider itself imports provider/s3/ directly.
 */
export * from "../../s3/objects.js";
