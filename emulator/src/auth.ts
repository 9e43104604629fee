import { sameSecret } from "./constant-time.js";
import { SignJWT, jwtVerify } from "jose";
import type { StateStore } from "./state.js";

const ISSUER = "cloudplatform-emulator";
const API_KEY_FORM = /^[A-Za-z0-9]+-[A-Za-z0-9_-]+$/;
const BEARER = /^Bearer\s+(\S+)$/i;

/** True when a header has the form of a management credential (§2): a raw API key or `Bearer …`. */
export function isManagementCredential(header: string): boolean {
  const value = header.trim();
  return /^Bearer(\s|$)/i.test(value) || API_KEY_FORM.test(value);
}

/**
 * Checks `Authorization` per docs/api-contract.md §2: the raw project API key, or
 * `Bearer <jwt>` (HS256 signed with the emulator's persisted secret, signature and expiry verified).
 */
export class Authenticator {
  private readonly key: Uint8Array;

  constructor(private readonly state: StateStore) {
    this.key = new Uint8Array(Buffer.from(state.jwtSecret, "base64url"));
  }

  /**
   * `apiKeyAs` is how the API key must come: `raw` (§2) or `bearer` (`Bearer <api key>`, for a
   * platform whose transcription endpoints want it so, §9.2). A JWT always comes as `Bearer`.
   */
  async check(header: string | undefined, apiKeyAs: "raw" | "bearer" = "raw"): Promise<boolean> {
    if (header === undefined) return false;
    const value = header.trim();
    const bearer = BEARER.exec(value);
    if (bearer !== null) {
      if (apiKeyAs === "bearer" && this.isApiKey(bearer[1]!)) return true;
      return this.verifyJwt(bearer[1]!);
    }
    return apiKeyAs === "raw" && this.isApiKey(value);
  }

  private isApiKey(value: string): boolean {
    return API_KEY_FORM.test(value) && sameSecret(value, this.state.currentApiKey);
  }

  /** A dashboard-session JWT; a negative TTL gives an already expired one (for tests). */
  async issueToken(ttlSeconds: number): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: "dashboard" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(ISSUER)
      .setSubject("emulator-user")
      .setIssuedAt(Math.min(now, now + ttlSeconds))
      .setExpirationTime(now + ttlSeconds)
      .sign(this.key);
  }

  private async verifyJwt(token: string): Promise<boolean> {
    try {
      await jwtVerify(token, this.key, { algorithms: ["HS256"], issuer: ISSUER, requiredClaims: ["exp"] });
      return true;
    } catch {
      return false;
    }
  }
}
