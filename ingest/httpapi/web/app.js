// The dashboard: a thin client of the console API (/api/console/*). The
// console token lives in sessionStorage of this tab only.
"use strict";
const $ = (s, el = document) => el.querySelector(s);
const esc = (v) => String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
let token = sessionStorage.getItem("gw_token") || "";
let nextCursor = null, lastFilter = "";

async function api(path, opts = {}) {
  const res = await fetch(path, { ...opts, headers: { "Content-Type": "application/json", ...(token ? { Authorization: "Bearer " + token } : {}), ...(opts.headers || {}) } });
  if (res.status === 204) return null;
  const body = await res.json().catch(() => ({}));
  if (res.status === 401 && token) { token = ""; sessionStorage.removeItem("gw_token"); show(); }
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}
function fail(e) { $("#error").textContent = e.message || String(e); }
function ok() { $("#error").textContent = ""; }
function form(el) { return Object.fromEntries(new FormData(el).entries()); }
const tokens = (t) => (t.prompt_tokens || 0) + (t.completion_tokens || 0);
function row(t, withApp) {
  return `<tr><td>${esc(t.received_at)}</td><td><a href="#traces" data-trace="${esc(t.request_id)}">${esc(t.request_id)}</a></td>` +
    (withApp ? `<td>${esc(t.app_id)}</td>` : "") + `<td>${esc(t.mode)}</td><td>${esc(t.model)}</td><td>${esc(t.status)}</td>` +
    `<td>${esc(t.final_decision)}</td><td>${tokens(t)}</td>` + (withApp ? `<td>${t.session_id ? `<a href="#sessions" data-session="${esc(t.session_id)}">${esc(t.session_id)}</a>` : ""}</td>` : `<td>${t.latency_ms ?? ""}</td>`) + `</tr>`;
}

function show() {
  const logged = Boolean(token);
  $("#nav").hidden = $("#logout").hidden = !logged;
  const page = logged ? (location.hash.slice(1) || "overview") : "login";
  for (const s of document.querySelectorAll("main > section")) s.hidden = s.id !== page;
  ok();
  ({ overview: loadOverview, traces: () => loadTraces(false), billing: loadBilling, apps: loadApps }[page] || (() => {}))();
}

async function loadOverview(params = "") {
  try {
    const k = await api("/api/console/kpis" + params);
    const rate = (d) => k.requests ? ((100 * (k.by_decision[d] || 0)) / k.requests).toFixed(1) + "%" : "0%";
    $("#kpis").innerHTML = [["Requests", k.requests], ["Tokens", k.tokens], ["Cost (USD)", k.cost_usd], ["Latency p50", (k.latency_p50_ms ?? "–") + " ms"],
      ["Latency p95", (k.latency_p95_ms ?? "–") + " ms"], ["Block rate", rate("block")], ["Rewrite rate", rate("rewrite")],
      ...Object.entries(k.by_mode).map(([m, n]) => ["Mode " + m, n])].map(([l, v]) => `<div class="card">${esc(l)}<b>${esc(v)}</b></div>`).join("");
    drawSeries(k);
    const r = await api("/api/console/requests?limit=20");
    $("#recent tbody").innerHTML = r.data.map((t) => row(t, false)).join("");
  } catch (e) { fail(e); }
}

// drawSeries draws the KPI time series as stacked bars (requests, of which
// blocked and errors), each bar with a tooltip title for mouse and screen readers.
function drawSeries(k) {
  const s = k.series || [], W = 960, H = 180, top = 14, bottom = 20, left = 40;
  const max = Math.max(1, ...s.map((p) => p.requests)), bw = (W - left) / Math.max(1, s.length);
  const y = (v) => ((H - top - bottom) * v) / max;
  const when = (t) => new Date(t).toLocaleString([], k.bucket_seconds >= 86400 ? { dateStyle: "short" } : { dateStyle: "short", timeStyle: "short" });
  let svg = `<text x="0" y="${top}">${max}</text><text x="0" y="${H - bottom}">0</text>`;
  s.forEach((p, i) => {
    const x = left + i * bw, w = Math.max(1, bw - 1), base = H - bottom;
    svg += `<g><title>${esc(when(p.start))}: ${p.requests} requests, ${p.tokens} tokens, ${p.blocked} blocked, ${p.rewritten} rewritten, ${p.errors} errors</title>` +
      `<rect class="req" x="${x}" y="${base - y(p.requests)}" width="${w}" height="${y(p.requests)}"></rect>` +
      `<rect class="blk" x="${x}" y="${base - y(p.blocked)}" width="${w}" height="${y(p.blocked)}"></rect>` +
      `<rect class="err" x="${x}" y="${base - y(p.blocked) - y(p.errors)}" width="${w}" height="${y(p.errors)}"></rect></g>`;
  });
  if (s.length) svg += `<text x="${left}" y="${H - 4}">${esc(when(s[0].start))}</text><text x="${W}" y="${H - 4}" text-anchor="end">${esc(when(s[s.length - 1].start))}</text>`;
  $("#series").innerHTML = svg;
  $("#series-caption").textContent = `Requests per ${k.bucket_seconds >= 3600 ? k.bucket_seconds / 3600 + " h" : k.bucket_seconds / 60 + " min"} (${s.reduce((a, p) => a + p.requests, 0)} in the window)`;
}

async function loadTraces(more) {
  try {
    let q = lastFilter;
    if (more && nextCursor) q += (q ? "&" : "") + "cursor=" + encodeURIComponent(nextCursor);
    const r = await api("/api/console/requests?limit=50" + (q ? "&" + q : ""));
    const html = r.data.map((t) => row(t, true)).join("");
    $("#trace-table tbody").innerHTML = more ? $("#trace-table tbody").innerHTML + html : html;
    nextCursor = r.next_cursor;
    $("#more").hidden = !nextCursor;
  } catch (e) { fail(e); }
}

function highlight(text, hits, stage) {
  const spans = [];
  for (const h of hits || []) if (h.stage === stage) for (const s of h.spans || []) spans.push([s.start, s.end, h.policy]);
  spans.sort((a, b) => a[0] - b[0]);
  // Spans are byte offsets of UTF-8 text.
  const bytes = new TextEncoder().encode(text || ""), dec = new TextDecoder();
  let out = "", pos = 0;
  for (const [s, e, p] of spans) {
    if (s < pos || e > bytes.length) continue;
    out += esc(dec.decode(bytes.slice(pos, s))) + `<mark title="${esc(p)}">${esc(dec.decode(bytes.slice(s, e)))}</mark>`;
    pos = e;
  }
  return out + esc(dec.decode(bytes.slice(pos)));
}

async function showTrace(id) {
  try {
    const t = await api("/api/console/requests/" + encodeURIComponent(id));
    const fields = Object.entries(t).filter(([k]) => !["prompt", "answer", "policy_hits"].includes(k));
    $("#trace-detail").innerHTML = `<h2>Trace ${esc(t.request_id)}</h2><table>${fields.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(typeof v === "object" ? JSON.stringify(v) : v)}</td></tr>`).join("")}</table>` +
      `<h3>Prompt</h3><pre>${highlight(t.prompt, t.policy_hits, "pre-flight")}</pre><h3>Answer</h3><pre>${highlight(t.answer, t.policy_hits, "post-flight")}</pre>` +
      `<h3>Policy hits</h3><pre>${esc(JSON.stringify(t.policy_hits, null, 1))}</pre>`;
  } catch (e) { fail(e); }
}

async function showSession(id) {
  try {
    const s = await api("/api/console/sessions/" + encodeURIComponent(id));
    $("#session-view").innerHTML = `<h2>Session ${esc(s.session_id)} (${s.data.length} turns)</h2>` + s.data.map((t, i) =>
      `<div class="card"><small>Turn ${i + 1} · ${esc(t.started_at)} · ${esc(t.final_decision || t.status)}</small><p><b>User:</b> ${esc(t.prompt)}</p><p><b>Assistant:</b> ${esc(t.answer)}</p></div>`).join("");
  } catch (e) { fail(e); }
}

async function loadBilling() {
  try {
    const b = await api("/api/console/billing");
    $("#bill-cards").innerHTML = [["Credit", b.credit_usd], ["Usage", b.usage_usd], ["Balance", b.balance_usd], ["Overage", b.overage_usd]]
      .map(([l, v]) => `<div class="card">${l} (USD)<b id="bill-${l.toLowerCase()}">${v.toFixed(6)}</b></div>`).join("");
    const rows = (xs) => xs.map((x) => `<tr><td>${esc(x.key)}</td><td>${x.requests}</td><td>${x.tokens}</td><td>${x.cost_usd.toFixed(6)}</td></tr>`).join("");
    $("#bill-mode tbody").innerHTML = rows(b.by_mode);
    $("#bill-day tbody").innerHTML = rows(b.by_day);
    $("#bill-app tbody").innerHTML = rows(b.by_app);
  } catch (e) { fail(e); }
}

async function loadApps() {
  try {
    const o = await api("/api/console/org");
    $("#org-form [name=default_proxy_mode]").value = o.default_proxy_mode || "";
    $("#org-mode").textContent = "in effect: " + o.effective_proxy_mode;
    const r = await api("/api/console/apps");
    $("#app-table tbody").innerHTML = r.data.map((a) => `<tr><td>${esc(a.name)}</td><td>${esc(a.id)}</td><td>${esc(a.mode)}</td><td>${esc(a.key_prefix)}…</td>` +
      `<td>${esc([a.provider_option, a.provider, a.model].filter(Boolean).join(" / "))}</td>` +
      `<td><button data-policy="${esc(a.id)}">Policy</button> ` +
      (a.mode === "full_control" || a.provider_option ? `<button data-switch="${esc(a.id)}" data-to="${a.provider_option === "byok" ? "managed" : "byok"}">Switch to ${a.provider_option === "byok" ? "Managed" : "BYOK"}</button> ` : "") +
      `<button data-delete="${esc(a.id)}" data-name="${esc(a.name)}">Delete</button></td></tr>`).join("");
  } catch (e) { fail(e); }
}

document.addEventListener("click", async (ev) => {
  const t = ev.target;
  if (t.dataset.trace) { ev.preventDefault(); location.hash = "#traces"; showTrace(t.dataset.trace); }
  if (t.dataset.session) { ev.preventDefault(); location.hash = "#sessions"; $("#session-form [name=id]").value = t.dataset.session; showSession(t.dataset.session); }
  if (t.dataset.delete && confirm(`Delete application "${t.dataset.name}"? Its key stops working at once.`)) {
    try { await api("/api/console/apps/" + t.dataset.delete, { method: "DELETE" }); loadApps(); } catch (e) { fail(e); }
  }
  if (t.dataset.policy) {
    try {
      const p = await api(`/api/console/apps/${t.dataset.policy}/policy`);
      $("#policy-edit").innerHTML = `<h2>Policy of ${esc(t.dataset.policy)} ${p.default ? "(default)" : "v" + p.version}</h2>` +
        `<textarea id="policy-json" rows="18" cols="100" aria-label="policy JSON">${esc(JSON.stringify(p.policy, null, 2))}</textarea><br><button id="policy-save" data-app="${esc(t.dataset.policy)}">Save policy</button>`;
    } catch (e) { fail(e); }
  }
  // BYOK needs the vendor key: a small form with a password field; Managed
  // is one PATCH (the stored key is deleted by the server).
  if (t.dataset.switch && t.dataset.to === "managed") {
    try { await api("/api/console/apps/" + t.dataset.switch, { method: "PATCH", body: JSON.stringify({ provider_option: "managed" }) }); loadApps(); } catch (e) { fail(e); }
  }
  if (t.dataset.switch && t.dataset.to === "byok") {
    $("#switch-edit").innerHTML = `<form id="byok-form" class="inline" data-app="${esc(t.dataset.switch)}"><label>LLM key for ${esc(t.dataset.switch)} <input name="llm_api_key" type="password" required></label><button>Use my key (BYOK)</button></form>`;
    $("#byok-form [name=llm_api_key]").focus();
  }
  if (t.id === "policy-save") {
    try { await api(`/api/console/apps/${t.dataset.app}/policy`, { method: "PUT", body: $("#policy-json").value }); ok(); t.textContent = "Saved"; } catch (e) { fail(e); }
  }
  if (t.id === "copy-key") { navigator.clipboard?.writeText($("#the-key").textContent); t.textContent = "Copied"; }
});

$("#login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try { token = (await api("/api/console/login", { method: "POST", body: JSON.stringify(form(ev.target)) })).token; sessionStorage.setItem("gw_token", token); location.hash = "#overview"; show(); } catch (e) { fail(e); }
});
$("#signup-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try { token = (await api("/api/console/signup", { method: "POST", body: JSON.stringify(form(ev.target)) })).token; sessionStorage.setItem("gw_token", token); location.hash = "#apps"; show(); } catch (e) { fail(e); }
});
$("#logout").addEventListener("click", () => { token = ""; sessionStorage.removeItem("gw_token"); location.hash = ""; show(); });
$("#kpi-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const f = form(ev.target), q = [];
  for (const k of ["since", "until"]) if (f[k]) q.push(k + "=" + encodeURIComponent(new Date(f[k]).toISOString()));
  loadOverview(q.length ? "?" + q.join("&") : "");
});
$("#trace-filter").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const f = form(ev.target), q = [];
  for (const [k, v] of Object.entries(f)) {
    if (!v) continue;
    if (k === "metadata") { const [mk, ...mv] = v.split("="); q.push("metadata." + encodeURIComponent(mk) + "=" + encodeURIComponent(mv.join("="))); }
    else if (k === "since" || k === "until") q.push(k + "=" + encodeURIComponent(new Date(v).toISOString()));
    else q.push(k + "=" + encodeURIComponent(v));
  }
  lastFilter = q.join("&");
  loadTraces(false);
});
$("#more").addEventListener("click", () => loadTraces(true));
$("#org-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const v = form(ev.target).default_proxy_mode;
  try {
    const o = await api("/api/console/org", { method: "PATCH", body: JSON.stringify({ default_proxy_mode: v || null }) });
    $("#org-mode").textContent = "in effect: " + o.effective_proxy_mode;
  } catch (e) { fail(e); }
});
document.addEventListener("submit", async (ev) => {
  if (ev.target.id !== "byok-form") return;
  ev.preventDefault();
  try {
    await api("/api/console/apps/" + ev.target.dataset.app, { method: "PATCH", body: JSON.stringify({ provider_option: "byok", ...form(ev.target) }) });
    $("#switch-edit").innerHTML = "";
    loadApps();
  } catch (e) { fail(e); }
});
$("#session-form").addEventListener("submit", (ev) => { ev.preventDefault(); showSession(form(ev.target).id); });
$("#app-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = form(ev.target);
  for (const k of Object.keys(f)) if (!f[k]) delete f[k];
  try {
    const a = await api("/api/console/apps", { method: "POST", body: JSON.stringify(f) });
    $("#new-key").innerHTML = `<p>API key of <b>${esc(a.name)}</b> (shown only now): <span class="key" id="the-key">${esc(a.api_key)}</span> <button id="copy-key">Copy</button></p>`;
    ev.target.reset();
    loadApps();
  } catch (e) { fail(e); }
});
window.addEventListener("hashchange", show);
show();
