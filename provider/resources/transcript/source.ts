/**
 * The local media file of a Transcript: stated and hashed by check through the shared reader of
 * local files (../local-files.ts), which keeps memory flat for a 2 GB file and reads it once per
 * process however often the engine calls check.
 */
import type { Stats } from "node:fs";
import { hashLocalFile, resolveLocalPath, statLocal, type LocalStat } from "../local-files.js";

export type SourceStat = LocalStat;

/** Relative paths are taken from the program directory, where the provider host runs. */
export const resolveSourcePath = resolveLocalPath;

export const statSource = statLocal;

/** sha256 (hex) of the file's content. */
export function hashSource(path: string, stats: Stats): string {
  return hashLocalFile(path, stats);
}
