// The baseline of the "import" suite: the list requests of cloudplatform-import's discovery alone.
// The same GETs (zones, buckets, each bucket's credentials, every page, following the Link header
// the emulator's canonical shape sends), the same number of buckets at once, each body parsed for
// the bucket ids and nothing else: no answer reader, no names, no files. Prints the counts it saw.
//
//   CLOUDPLATFORM_BASE_URL=… CLOUDPLATFORM_API_KEY=… node bench/import-lists.mts <concurrency>
const base = process.env["CLOUDPLATFORM_BASE_URL"] ?? "";
const key = process.env["CLOUDPLATFORM_API_KEY"] ?? "";
const concurrency = Number(process.argv[2] ?? 8);

async function listAll(path: string): Promise<Array<{ id?: string }>> {
  const items: Array<{ id?: string }> = [];
  let url: string | undefined = base + path;
  while (url !== undefined) {
    const res: Response = await fetch(url, { headers: { authorization: key } });
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    items.push(...((await res.json()) as Array<{ id?: string }>));
    const next = /<([^>]*)>;\s*rel="next"/.exec(res.headers.get("link") ?? "")?.[1];
    url = next === undefined ? undefined : new URL(next, url).href;
  }
  return items;
}

const [zones, buckets] = await Promise.all([listAll("/dns/zones"), listAll("/object-storage/buckets")]);
let next = 0;
let credentials = 0;
const worker = async (): Promise<void> => {
  while (next < buckets.length) {
    const bucket = buckets[next++];
    credentials += (await listAll(`/object-storage/buckets/${bucket?.id ?? ""}/credentials`)).length;
  }
};
await Promise.all(Array.from({ length: Math.min(concurrency, buckets.length) }, worker));
console.log(JSON.stringify({ zones: zones.length, buckets: buckets.length, credentials }));
