/**
 * Error bodies in any of the shapes of docs/api-contract.md §2.1 and §2.3, read for their machine
 * code and message.
 */
import { AnswerObject, isObj, type Obj } from "./object.js";
import { text } from "./values.js";

export interface ErrorBody {
  readonly apiCode: string | undefined;
  readonly message: string | undefined;
}

/** A machine code: one word of letters, digits, `_`, `.`, `-` (not a sentence). */
function codeWord(v: unknown): string | undefined {
  return typeof v === "string" && /^[A-Za-z][A-Za-z0-9_.-]{0,79}$/.test(v) ? v : undefined;
}

const messageNames = ["message", "detail", "error_description", "error_message", "description", "msg", "reason"];
const codeNames = ["code", "error_code", "type", "status"];

function fromObject(o: Obj): ErrorBody {
  const f = new AnswerObject(o);
  const nested = f.read(["error", "fault"], (v) => (isObj(v) ? new AnswerObject(v) : undefined));
  const list = f.read(["errors"], (v) =>
    Array.isArray(v) && v.length > 0 ? (isObj(v[0]) ? new AnswerObject(v[0]) : text(v[0])) : undefined,
  );
  const listed = typeof list === "string" ? undefined : list;
  const errorString = f.read(["error"], text);
  const title = f.read(["title"], text);
  const detail = f.read(["detail"], text);
  const message =
    nested?.read(messageNames, text) ??
    listed?.read([...messageNames, "title"], text) ??
    (typeof list === "string" ? list : undefined) ??
    (title !== undefined && detail !== undefined ? `${title}: ${detail}` : undefined) ??
    f.read(messageNames, text) ??
    (errorString !== undefined && codeWord(errorString) === undefined ? errorString : undefined) ??
    title;
  const apiCode =
    nested?.read(codeNames, codeWord) ??
    listed?.read(codeNames, codeWord) ??
    codeWord(errorString) ??
    f.read(["code", "error_code"], codeWord);
  return { apiCode, message };
}

/**
 * Reads an error body in any of the shapes of docs/api-contract.md §2.1 and §2.3: JSON (`error`
 * object or string, `errors[]`, RFC 9457, OAuth, flat), a simple XML `<Error>`, or plain text.
 */
export function readErrorBody(body: string): ErrorBody {
  const trimmed = body.trim();
  if (trimmed === "") return { apiCode: undefined, message: undefined };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    if (trimmed.startsWith("<")) {
      // An XML error (`<Code>`, `<Message>`) is read; an HTML page (a proxy's) says nothing useful.
      const tag = (name: string) => new RegExp(`<${name}>([^<]{1,500})</${name}>`).exec(trimmed)?.[1];
      return { apiCode: codeWord(tag("Code")), message: tag("Message") };
    }
    return { apiCode: undefined, message: trimmed.split("\n")[0] };
  }
  if (isObj(json)) return fromObject(json);
  return { apiCode: undefined, message: typeof json === "string" ? text(json) : undefined };
}
