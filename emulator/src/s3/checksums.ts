/**
 * The additional checksums S3 accepts (x-amz-checksum-<algorithm>), computed incrementally so that
 * bodies are never buffered. Values are base64 of the big-endian digest, as S3 sends them.
 */
import { createHash, type Hash } from "node:crypto";
import { crc32 } from "node:zlib";

const CHECKSUM_ALGORITHMS = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256"] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];
export type Checksums = Partial<Record<ChecksumAlgorithm, string>>;

export interface Checksummer {
  update(data: Buffer): void;
  /** base64 of the digest */
  digest(): string;
}

export function isChecksumAlgorithm(name: string): name is ChecksumAlgorithm {
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(name);
}

export function createChecksummer(algorithm: ChecksumAlgorithm): Checksummer {
  switch (algorithm) {
    case "crc32":
      return crc32Checksummer();
    case "crc32c":
      return crc32cChecksummer();
    case "crc64nvme":
      return crc64NvmeChecksummer();
    case "sha1":
    case "sha256":
      return hashChecksummer(createHash(algorithm));
  }
}

function hashChecksummer(hash: Hash): Checksummer {
  return { update: (data) => void hash.update(data), digest: () => hash.digest("base64") };
}

function uint32Base64(value: number): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out.toString("base64");
}

function crc32Checksummer(): Checksummer {
  let value = 0;
  return { update: (data) => void (value = crc32(data, value)), digest: () => uint32Base64(value) };
}

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

function crc32cChecksummer(): Checksummer {
  let crc = 0xffffffff;
  return {
    update(data) {
      let c = crc;
      for (let i = 0; i < data.length; i++) c = CRC32C_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
      crc = c;
    },
    digest: () => uint32Base64(crc ^ 0xffffffff),
  };
}

// CRC-64/NVME (reflected, polynomial 0xad93d23594c93659 → reversed 0x9a6c9329ac4bc9b5), kept as two
// 32-bit halves because BigInt arithmetic per byte would make multi-GB uploads crawl.
const CRC64_TABLES = (() => {
  const hi = new Uint32Array(256);
  const lo = new Uint32Array(256);
  const polyHi = 0x9a6c9329;
  const polyLo = 0xac4bc9b5;
  for (let i = 0; i < 256; i++) {
    let h = 0;
    let l = i;
    for (let k = 0; k < 8; k++) {
      const lsb = l & 1;
      l = ((l >>> 1) | ((h & 1) << 31)) >>> 0;
      h = h >>> 1;
      if (lsb) {
        h = (h ^ polyHi) >>> 0;
        l = (l ^ polyLo) >>> 0;
      }
    }
    hi[i] = h;
    lo[i] = l;
  }
  return { hi, lo };
})();

function crc64NvmeChecksummer(): Checksummer {
  let h = 0xffffffff;
  let l = 0xffffffff;
  const { hi, lo } = CRC64_TABLES;
  return {
    update(data) {
      let ch = h;
      let cl = l;
      for (let i = 0; i < data.length; i++) {
        const idx = (cl ^ data[i]!) & 0xff;
        cl = (((cl >>> 8) | (ch << 24)) ^ lo[idx]!) >>> 0;
        ch = ((ch >>> 8) ^ hi[idx]!) >>> 0;
      }
      h = ch;
      l = cl;
    },
    digest() {
      const out = Buffer.alloc(8);
      out.writeUInt32BE((h ^ 0xffffffff) >>> 0, 0);
      out.writeUInt32BE((l ^ 0xffffffff) >>> 0, 4);
      return out.toString("base64");
    },
  };
}
