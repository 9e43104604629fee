import { z } from "zod";
import { SUPPORTED_LANGUAGES } from "./languages.js";

const MAX_GLOSSARY_ENTRIES = 100;
const MAX_GLOSSARY_CHARS = 100;

/** The body of POST /v1/transcripts (spec §4.3, docs/api-contract.md §8.2). */
export const CreateTranscriptBody = z
  .object({
    url: z.string().min(1).optional(),
    uploadKey: z.string().min(1).optional(),
    language: z
      .string()
      .default("auto")
      .refine((code) => code === "auto" || SUPPORTED_LANGUAGES.has(code), {
        message: "must be `auto` or one of the 99 ISO 639-1 codes of docs/api-contract.md §8.2 (e.g. `en`)",
      }),
    webhookUrl: z.string().min(1).optional(),
    glossary: z
      .record(
        z
          .string()
          .min(1, "glossary keys must not be empty")
          .max(MAX_GLOSSARY_CHARS, `glossary keys are at most ${MAX_GLOSSARY_CHARS} characters`),
        z.string().max(MAX_GLOSSARY_CHARS, `glossary values are at most ${MAX_GLOSSARY_CHARS} characters`),
      )
      .refine((glossary) => Object.keys(glossary).length <= MAX_GLOSSARY_ENTRIES, {
        message: `at most ${MAX_GLOSSARY_ENTRIES} entries`,
      })
      .default({}),
  })
  .refine((body) => (body.url === undefined) !== (body.uploadKey === undefined), {
    message: "send exactly one of url and uploadKey",
    path: ["url"],
  });
export type CreateTranscriptBody = z.infer<typeof CreateTranscriptBody>;

/** `language: must be …` — names the field, as docs/api-contract.md §2.1 asks. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "body"}: ${issue.message}`)
    .join("; ");
}
