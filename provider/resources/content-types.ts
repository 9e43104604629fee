/**
 * The Content-Type an object gets from its file name's extension when the program names none: what
 * browsers need to render a static site (a page served as `application/octet-stream` is downloaded,
 * a script with the wrong type is refused). A short table of the web's common types rather than a
 * registry of thousands: check runs it for every file of a folder, and an unknown extension gets the
 * S3 default, `application/octet-stream`, as it would from `aws s3 cp`.
 */

/** S3's own default, for names whose extension the table does not know. */
export const defaultContentType = "application/octet-stream";

const utf8 = "; charset=utf-8";

const byExtension: Readonly<Record<string, string>> = {
  // Pages, styles, scripts and data
  html: `text/html${utf8}`,
  htm: `text/html${utf8}`,
  css: `text/css${utf8}`,
  js: `text/javascript${utf8}`,
  mjs: `text/javascript${utf8}`,
  cjs: `text/javascript${utf8}`,
  json: "application/json",
  map: "application/json",
  webmanifest: "application/manifest+json",
  xml: "application/xml",
  rss: "application/rss+xml",
  atom: "application/atom+xml",
  txt: `text/plain${utf8}`,
  md: `text/markdown${utf8}`,
  csv: `text/csv${utf8}`,
  tsv: `text/tab-separated-values${utf8}`,
  yaml: `application/yaml`,
  yml: `application/yaml`,
  toml: `application/toml`,
  ics: `text/calendar${utf8}`,
  wasm: "application/wasm",
  // Images
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  svg: "image/svg+xml",
  ico: "image/x-icon",
  bmp: "image/bmp",
  tif: "image/tiff",
  tiff: "image/tiff",
  // Fonts
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  eot: "application/vnd.ms-fontobject",
  // Audio and video
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  flac: "audio/flac",
  m4a: "audio/mp4",
  aac: "audio/aac",
  opus: "audio/opus",
  mp4: "video/mp4",
  m4v: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  ogv: "video/ogg",
  vtt: `text/vtt${utf8}`,
  // Documents and archives
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tgz: "application/gzip",
  tar: "application/x-tar",
  bz2: "application/x-bzip2",
  xz: "application/x-xz",
  zst: "application/zstd",
  "7z": "application/x-7z-compressed",
  epub: "application/epub+zip",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  // Data and models
  parquet: "application/vnd.apache.parquet",
  avro: "application/avro",
  bin: defaultContentType,
};

/**
 * The type of `name` (a file name, a path or an object key) by its extension, case-insensitive;
 * `application/octet-stream` when it has none or the table does not know it.
 */
export function contentTypeOf(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0 || dot === base.length - 1) return defaultContentType;
  return byExtension[base.slice(dot + 1).toLowerCase()] ?? defaultContentType;
}
