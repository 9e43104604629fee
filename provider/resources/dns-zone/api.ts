/**
 * The dns-zone calls live in the platform layer (provider/platform/dns-zone/api.ts), below every resource.
 * This module re-exports them for the end-to-end tests that set up objects by hand with them
 * (test/e2e/); the provider itself imports provider/platform/ directly.
 */
export * from "../../platform/dns-zone/api.js";
