// The emulator console, in the browser: plain JavaScript, no build step. It polls two GET endpoints
// (the requests since the last one it saw, every second; the overview when something happened) and
// changes faults or resets through /_emulator/ with the page's token. Everything it shows is put in
// the page as text (never as HTML), so names chosen by a client cannot become markup.
/* global document, window, fetch, confirm, URLSearchParams */
"use strict";

(function () {
  const BASE = "/_emulator/console";
  const TOKEN = document.querySelector('meta[name="emulator-console-token"]').getAttribute("content");
  /** Rows the page keeps; the emulator keeps its own last 1000 requests. */
  const MAX_ROWS = 1000;
  const POLL_MS = 1000;
  const HIDDEN_POLL_MS = 5000;
  /** The overview is read at least this often, for what changes without a request (transcripts). */
  const OVERVIEW_MS = 3000;

  const view = {
    last: 0,
    epoch: 0,
    requests: [],
    failed: 0,
    overviewAt: 0,
    overviewDue: true,
    selected: undefined,
    formDirty: false,
  };

  const $ = (id) => document.getElementById(id);

  /** An element with text content or child nodes; `props` sets properties (className, title, …). */
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.assign(node, props);
    for (const child of children) {
      if (child === undefined || child === null) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  const numberFormat = new Intl.NumberFormat("en-US");
  const timeFormat = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    fractionalSecondDigits: 3,
    hour12: false,
  });
  const clockFormat = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });
  const dayFormat = new Intl.DateTimeFormat("en-GB", {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hour12: false,
  });

  function bytes(n) {
    if (n === null || n === undefined) return "–";
    if (n < 1024) return `${n} B`;
    const units = ["KiB", "MiB", "GiB", "TiB"];
    let value = n / 1024;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit += 1;
    }
    return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
  }

  /** The time of day for today, else the day and the time. */
  function when(iso) {
    if (!iso) return "–";
    const date = new Date(iso);
    return date.toDateString() === new Date().toDateString() ? clockFormat.format(date) : dayFormat.format(date);
  }
  const timeCell = (iso) => el("td", { className: "time", title: iso ?? "" }, when(iso));
  const usd = (n) => (n === null || n === undefined ? "–" : `$${n.toFixed(n < 1 ? 4 : 2)}`);

  function statusClass(status) {
    if (status === null) return "bad";
    if (status >= 500) return "bad";
    if (status >= 400) return "warn";
    return "ok";
  }

  async function getJson(path) {
    const response = await fetch(path, { headers: { accept: "application/json" }, cache: "no-store" });
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return response.json();
  }

  /** A change through /_emulator/: JSON, with the token the emulator asks of a browser. */
  async function change(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: { "content-type": "application/json", "x-emulator-console-token": TOKEN },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    let answer;
    try {
      answer = text === "" ? undefined : JSON.parse(text);
    } catch {
      answer = undefined;
    }
    return { ok: response.ok, status: response.status, answer };
  }

  /** A path as text that may break only after a slash, not inside a name. */
  function pathText(path) {
    const span = el("span", {});
    path.split(/(?<=\/)/).forEach((part, i) => {
      if (i > 0) span.append(el("wbr", {}));
      span.append(part);
    });
    return span;
  }

  function fill(tbody, empty, rows) {
    tbody.replaceChildren(...rows);
    empty.hidden = rows.length > 0;
  }

  function setText(id, text, className) {
    const node = $(id);
    node.textContent = text;
    if (className !== undefined) node.className = className;
  }

  // ---- Overview: the platform's objects ----

  function renderOverview(o) {
    setText("shape", o.emulator.shape);
    setText("base-url", o.emulator.base_url);
    setText("s3-url", o.emulator.s3_url);
    const objects = o.buckets.reduce((sum, b) => sum + b.objects, 0);
    const active = o.credentials.filter((c) => c.active).length;
    setText("count-buckets", numberFormat.format(o.buckets.length));
    setText("count-objects", numberFormat.format(objects));
    setText(
      "count-credentials",
      active === o.credentials.length ? String(active) : `${active} / ${o.credentials.length}`,
    );
    setText("count-zones", numberFormat.format(o.zones.length));
    setText("count-transcripts", numberFormat.format(o.transcripts.length));
    setText("balance", `$${o.balance_usd.toFixed(2)}`);

    view.selected = o.objects?.bucket.id;
    fill(
      $("bucket-rows"),
      $("buckets-empty"),
      o.buckets.map((b) => {
        const pick = el("button", { type: "button", className: "link", textContent: b.name, title: b.id });
        pick.addEventListener("click", () => {
          view.selected = b.id;
          view.overviewDue = true;
          void refreshOverview();
        });
        return el(
          "tr",
          { className: b.id === view.selected ? "selected" : "" },
          el("td", {}, pick),
          el("td", {}, b.storage_class),
          el("td", { className: "num" }, numberFormat.format(b.objects)),
          el("td", { className: "num" }, bytes(b.bytes)),
          timeCell(b.created_at),
        );
      }),
    );
    fill(
      $("credential-rows"),
      $("credentials-empty"),
      o.credentials.map((c) =>
        el(
          "tr",
          {},
          el("td", { className: "mono" }, c.access_key_id),
          el("td", {}, c.bucket_name ?? c.bucket_id),
          el("td", {}, el("span", { className: `badge ${c.active ? "ok" : ""}` }, c.active ? "active" : "inactive")),
          timeCell(c.created_at),
        ),
      ),
    );
    fill(
      $("zone-rows"),
      $("zones-empty"),
      o.zones.map((z) =>
        el(
          "tr",
          {},
          el("td", { title: z.id }, z.name),
          el("td", {}, el("span", { className: "badge ok" }, z.status)),
          el("td", { className: "mono" }, z.nameservers.join(", ")),
          timeCell(z.created_at),
        ),
      ),
    );
    fill(
      $("transcript-rows"),
      $("transcripts-empty"),
      o.transcripts.map((t) => {
        const tone = t.status === "done" ? "ok" : t.status === "error" ? "bad" : "warn";
        const text =
          t.status === "error"
            ? el("span", { className: "error" }, t.error ?? "")
            : (t.text ?? el("span", { className: "muted" }, "…"));
        return el(
          "tr",
          {},
          el("td", { title: t.id }, el("span", { className: `badge ${tone}` }, t.status)),
          el("td", { className: "text" }, text),
          el("td", { className: "num" }, t.audio_duration === null ? "–" : `${t.audio_duration.toFixed(1)} s`),
          el("td", { className: "num" }, usd(t.price_usd)),
          timeCell(t.created_at),
        );
      }),
    );
    renderFaultState(o.faults);
    renderRateLimit(o.rate_limit);
    if (!view.formDirty) fillFaultForm(o.faults);
  }

  function renderObjects(listing) {
    if (listing === null) {
      setText("objects-title", "Objects");
      setText("objects-hint", "");
      $("objects-empty").textContent = "No bucket.";
      fill($("object-rows"), $("objects-empty"), []);
      return;
    }
    const bucket = listing.bucket;
    setText("objects-title", `Objects in ${bucket.name}`);
    setText(
      "objects-hint",
      listing.truncated
        ? `the first ${listing.objects.length} of ${numberFormat.format(listing.count)}`
        : `${numberFormat.format(listing.count)} · ${bytes(listing.bytes)}`,
    );
    $("objects-empty").textContent = "This bucket is empty.";
    fill(
      $("object-rows"),
      $("objects-empty"),
      listing.objects.map((object) => {
        const query = new URLSearchParams({ key: object.key }).toString();
        const link = el("a", {
          href: `${BASE}/api/buckets/${encodeURIComponent(bucket.id)}/object?${query}`,
          textContent: "Download",
        });
        link.setAttribute("download", object.key.split("/").pop() || "object");
        return el(
          "tr",
          {},
          el("td", { className: "route" }, pathText(object.key)),
          el("td", { className: "num" }, bytes(object.size)),
          el("td", { className: "mono" }, object.content_type),
          timeCell(object.last_modified),
          el("td", { className: "num" }, link),
        );
      }),
    );
  }

  async function refreshOverview() {
    view.overviewDue = false;
    view.overviewAt = Date.now();
    const query = view.selected === undefined ? "" : `?${new URLSearchParams({ bucket: view.selected })}`;
    const overview = await getJson(`${BASE}/api/overview${query}`);
    renderOverview(overview);
    renderObjects(overview.objects);
  }

  // ---- Requests: the live list ----

  const failedRequest = (r) => r.status === null || r.status >= 400 || r.fault !== undefined;

  function requestRow(r) {
    const status = r.status === null ? "none" : String(r.status);
    const detail = [r.error, r.fault === undefined ? undefined : `fault: ${r.fault}`].filter(Boolean).join(" · ");
    const row = el(
      "tr",
      { className: "fresh" },
      el("td", { className: "time", title: r.time }, timeFormat.format(new Date(r.time))),
      el("td", { className: "method" }, r.method),
      el("td", { className: "route" }, pathText(r.route)),
      el("td", { className: "muted" }, r.area),
      el("td", { className: "num" }, el("span", { className: `badge ${statusClass(r.status)}` }, status)),
      el("td", { className: "num" }, numberFormat.format(r.ms)),
      el("td", { className: "error" }, detail),
    );
    // Highlighted once, when it arrives (not again when a filter shows it).
    row.addEventListener("animationend", () => row.classList.remove("fresh"), { once: true });
    row.dataset.area = r.area;
    row.dataset.status = status;
    row.dataset.failed = String(failedRequest(r));
    row.dataset.text = `${r.method} ${r.route} ${status} ${detail}`.toLowerCase();
    return row;
  }

  function matches(row) {
    const area = $("filter-area").value;
    const status = $("filter-status").value;
    const text = $("filter-text").value.trim().toLowerCase();
    if (area !== "" && row.dataset.area !== area) return false;
    if (status === "failed" && row.dataset.failed !== "true") return false;
    if (/^\d$/.test(status) && !row.dataset.status.startsWith(status)) return false;
    return text === "" || row.dataset.text.includes(text);
  }

  function applyFilters() {
    const rows = $("request-rows").rows;
    let shown = 0;
    for (const row of rows) {
      row.hidden = !matches(row);
      if (!row.hidden) shown += 1;
    }
    setText("requests-shown", rows.length === shown ? `last ${rows.length}` : `${shown} of the last ${rows.length}`);
    $("requests-empty").hidden = rows.length > 0;
    setText("count-failed", numberFormat.format(view.failed), view.failed > 0 ? "value bad" : "value");
  }

  function addRequests(requests) {
    const tbody = $("request-rows");
    for (const r of requests) {
      const row = requestRow(r);
      row.hidden = !matches(row);
      tbody.prepend(row);
      if (failedRequest(r)) view.failed += 1;
    }
    while (tbody.rows.length > MAX_ROWS) {
      const oldest = tbody.rows[tbody.rows.length - 1];
      if (oldest.dataset.failed === "true") view.failed -= 1;
      oldest.remove();
    }
    applyFilters();
  }

  function clearRequests() {
    $("request-rows").replaceChildren();
    view.failed = 0;
    applyFilters();
  }

  // ---- Faults and reset ----

  const faultFields = ["latencyMs", "retryAfterSeconds", "dropRate", "loseRate", "garbleRate", "seed", "routes"];

  function renderFaultState(faults) {
    const parts = Object.entries(faults.statusRates).map(([status, rate]) => `${status} ${percent(rate)}`);
    if (faults.dropRate > 0) parts.push(`drop ${percent(faults.dropRate)}`);
    if (faults.loseRate > 0) parts.push(`lose ${percent(faults.loseRate)}`);
    if (faults.garbleRate > 0) parts.push(`garble ${percent(faults.garbleRate)}`);
    if (faults.latencyMs > 0) parts.push(`+${faults.latencyMs} ms`);
    const pill = $("faults-state");
    pill.textContent = parts.length === 0 ? "no faults" : `faults: ${parts.join(", ")}`;
    pill.className = parts.length === 0 ? "pill" : "pill warn";
    pill.title = faults.routes === undefined ? "on every route" : `on routes containing "${faults.routes}"`;
  }

  function renderRateLimit(limit) {
    const pill = $("rate-limit-state");
    const on = limit.requestsPerSecond > 0;
    pill.textContent = on
      ? `rate limit: ${limit.requestsPerSecond}/s, burst ${limit.burst}${limit.announce ? ", announced" : ""}` +
        // The refusal, when it is not the default 429 with Retry-After (nginx's limit_req: 503, none).
        `${limit.status === 503 ? ", refused with 503" : ""}${limit.retryAfter === false ? " without Retry-After" : ""}` +
        ` · ${limit.refused} refused`
      : "no rate limit";
    pill.className = on ? "pill warn" : "pill";
    pill.title = `${limit.allowed} allowed, ${limit.refused} refused (PUT /_emulator/rate-limit changes it)`;
  }

  function percent(rate) {
    return `${Math.round(rate * 1000) / 10}%`;
  }

  function fillFaultForm(faults) {
    const form = $("faults-form");
    form.elements.statusRates.value = Object.entries(faults.statusRates)
      .map(([status, rate]) => `${status}=${rate}`)
      .join(", ");
    for (const name of faultFields) {
      const value = faults[name];
      form.elements[name].value = value === undefined ? "" : String(value);
    }
  }

  /** The PUT /_emulator/faults body the form describes, or a message saying what to fix. */
  function readFaultForm() {
    const form = $("faults-form");
    const statusRates = {};
    for (const part of form.elements.statusRates.value.split(",")) {
      const item = part.trim();
      if (item === "") continue;
      const match = /^(\d{3})\s*=\s*(\d*\.?\d+)$/.exec(item);
      if (match === null) return { error: `error statuses: "${item}" is not status=rate, e.g. 503=0.1` };
      statusRates[match[1]] = Number(match[2]);
    }
    const body = { statusRates };
    for (const name of faultFields) {
      const raw = form.elements[name].value.trim();
      if (raw === "") continue;
      body[name] = name === "routes" ? raw : Number(raw);
    }
    return { body };
  }

  function say(id, text, tone) {
    const node = $(id);
    node.textContent = text;
    node.classList.remove("ok", "bad");
    node.classList.add(tone);
  }

  async function putFaults(body, done) {
    const result = await change("PUT", "/_emulator/faults", body);
    if (result.ok) {
      view.formDirty = false;
      fillFaultForm(result.answer);
      renderFaultState(result.answer);
      say("faults-message", done, "ok");
    } else {
      const message = result.answer?.error?.message ?? `the emulator answered ${result.status}`;
      say("faults-message", message, "bad");
    }
  }

  $("faults-form").addEventListener("input", () => {
    view.formDirty = true;
  });
  $("faults-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const read = readFaultForm();
    if (read.error !== undefined) say("faults-message", read.error, "bad");
    else void putFaults(read.body, "Faults applied.");
  });
  $("faults-clear").addEventListener("click", () => void putFaults({}, "Faults cleared."));
  $("reset").addEventListener("click", async () => {
    if (!confirm("Reset the emulator? Every bucket, object, credential, zone and transcript is deleted.")) return;
    const result = await change("POST", "/_emulator/reset", {});
    if (result.ok) {
      view.selected = undefined;
      view.overviewDue = true;
      say("reset-message", "The emulator was reset.", "ok");
    } else {
      say("reset-message", result.answer?.error?.message ?? `the emulator answered ${result.status}`, "bad");
    }
  });
  for (const id of ["filter-area", "filter-status", "filter-text"]) $(id).addEventListener("input", applyFilters);

  // ---- The loop ----

  function setLive(ok) {
    setText("live", ok ? "live" : "emulator unreachable", ok ? "pill ok" : "pill bad");
  }

  async function tick() {
    try {
      const answer = await getJson(`${BASE}/api/requests?after=${view.last}`);
      if (answer.epoch !== view.epoch) {
        if (view.epoch !== 0) clearRequests();
        view.epoch = answer.epoch;
        view.overviewDue = true;
      }
      if (answer.requests.length > 0) {
        addRequests(answer.requests);
        view.overviewDue = true;
      }
      view.last = answer.last;
      setText("count-requests", numberFormat.format(answer.total));
      if (view.overviewDue || Date.now() - view.overviewAt >= OVERVIEW_MS) await refreshOverview();
      setLive(true);
    } catch {
      setLive(false);
    }
    window.setTimeout(tick, document.hidden ? HIDDEN_POLL_MS : POLL_MS);
  }

  applyFilters();
  void tick();
})();
