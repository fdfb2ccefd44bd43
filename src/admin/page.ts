// Renders the /admin page from the admin JSON routes' data: server-side HTML, no build step, nothing from a CDN.
import type { MetricsSnapshot } from '../plugins/metrics.js'
import type { ReadinessReport, TruthSummary } from './schemas.js'
import type { JobStats } from '../jobs/types.js'
import { escapeHtml } from '../http/html.js'

/** Each section's data, or why it could not be read. */
export type Loaded<T> = { ok: true; data: T } | { ok: false; error: string }

export interface PanelData {
  report: Loaded<ReadinessReport>
  truth: Loaded<TruthSummary>
  metrics: Loaded<MetricsSnapshot>
  /** Absent where a caller renders without the job queue. */
  jobs?: Loaded<JobStats>
}


const fmt = (x: number | null | undefined, digits = 1, unit = '') =>
  x === null || x === undefined ? '<span class="na">n/a</span>' : `${x.toFixed(digits)}${unit}`
const mib = (bytes: number | null | undefined) => (bytes === null || bytes === undefined ? '<span class="na">n/a</span>' : `${(bytes / 1048576).toFixed(1)} MiB`)
const pct = (x: number | null | undefined) => (x === null || x === undefined ? '<span class="na">n/a</span>' : `${(x * 100).toFixed(2)} %`)
const badge = (text: string, tone: 'good' | 'warn' | 'bad' | 'muted') => `<span class="badge ${tone}">${escapeHtml(text)}</span>`
const unavailable = (what: string, error: string) => `<p class="error">${escapeHtml(what)} unavailable: ${escapeHtml(error)}</p>`

/** The inner HTML of #panel: everything the page shows about the host. */
export function renderPanel({ report, truth, metrics, jobs }: PanelData): string {
  return [renderReadiness(report), renderTruth(truth), renderMetrics(metrics), jobs ? renderJobs(jobs) : ''].join('\n')
}

function renderJobs(loaded: Loaded<JobStats>): string {
  if (!loaded.ok) return `<section class="card wide" id="jobs"><h2>Jobs</h2>${unavailable('job figures', loaded.error)}</section>`
  const j = loaded.data
  const d = j.durations_ms
  const states = Object.entries(j.by_state).map(([state, n]) => `<td class="num">${n}</td>`).join('')
  return `<section class="card wide" id="jobs"><h2>Jobs</h2>
  <div class="stats">
    <div><span class="k">queue depth</span><span class="v">${j.queue_depth} waiting · ${j.running} running</span></div>
    <div><span class="k">throughput</span><span class="v">${fmt(j.throughput_per_min, 2)} / min (${j.finished_last_15_min} in 15 min)</span></div>
    <div><span class="k">mean run</span><span class="v">${d.count ? `${fmt(d.sum / d.count / 1000, 2)} s over ${d.count}` : '<span class="na">no job finished yet</span>'}</span></div>
  </div>
  <table><thead><tr>${Object.keys(j.by_state).map((s) => `<th>${escapeHtml(s)}</th>`).join('')}</tr></thead><tbody><tr>${states}</tr></tbody></table></section>`
}

function renderReadiness(loaded: Loaded<ReadinessReport>): string {
  if (!loaded.ok) {
    return `<section class="card wide"><h2>Readiness</h2><div id="status">${badge('unknown', 'bad')}</div><div id="score">n/a</div>${unavailable('the readiness report', loaded.error)}
      <table id="smoke-table"></table><div id="blockers"></div></section>`
  }
  const r = loaded.data
  const tone = r.summary.status === 'ready' ? (r.plan.readiness === 'go' ? 'good' : 'warn') : 'bad'
  const boot = r.blockers.boot
  const smokeRows = boot.checks.length === 0
    ? `<tr><td colspan="4" class="na">${escapeHtml(boot.skipped ?? 'no checks')}</td></tr>`
    : boot.checks.map((c) => `<tr class="${c.ok ? '' : 'failed'}"><td><code>${escapeHtml(c.path)}</code></td><td>${escapeHtml(c.status_code ?? '—')}</td><td class="num">${fmt(c.ms)}</td><td>${c.ok ? badge('pass', 'good') : badge('fail', 'bad') + ' ' + escapeHtml(c.error)}</td></tr>`).join('')
  const checks = r.plan.checks.map((c) => `<tr><td>${escapeHtml(c.name.replace(/_/g, ' '))}</td><td class="num">${c.weight}</td><td>${badge(c.status, c.status === 'pass' ? 'good' : c.status === 'warn' ? 'warn' : 'bad')}</td><td class="num">${c.earned}</td><td>${escapeHtml(c.detail)}</td></tr>`).join('')
  const required = r.blockers.required_blockers
  const blockers = required.length === 0
    ? '<p class="quiet">No blockers.</p>'
    : `<ul class="issues">${required.map((b) => `<li class="bad"><strong>${escapeHtml(b.kind)}</strong> ${escapeHtml(b.detail)}</li>`).join('')}</ul>`
  const advisoryItems = [
    ...r.blockers.advisories.map((a) => ({
      kind: a.kind,
      text: `${a.detail.module} → ${a.detail.recommended_package}${a.detail.critical === undefined ? ' (not in the manifest)' : a.detail.critical ? ' (missing, critical)' : ' (missing from the environment)'}`,
    })),
    ...r.blockers.notices.map((n) => ({ kind: n.kind, text: n.detail })),
  ]
  const advisories = advisoryItems.length === 0
    ? '<p class="quiet">No advisories.</p>'
    : `<ul class="issues">${advisoryItems.map((a) => `<li class="warn"><strong>${escapeHtml(a.kind)}</strong> ${escapeHtml(a.text)}</li>`).join('')}</ul>`
  const deps = [r.node_dependency_summary, r.dependency_summary].map((d) =>
    `<tr><td>${escapeHtml(d.requirements_path)}</td><td>${badge(d.status, d.status === 'pass' ? 'good' : d.status === 'warn' ? 'warn' : 'bad')}</td><td class="num">${d.modules.length}</td><td class="num">${d.missing_in_requirements.length}</td><td class="num">${d.missing_in_environment.length}</td><td class="num">${d.findings.length}</td><td>${escapeHtml(d.environment.interpreter ?? d.environment.error ?? '')}</td></tr>`).join('')
  const startup = r.plan.startup_summary.commands.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')
  const assets = r.plan.startup_summary.asset_checks.map((a) => `<li>${a.exists ? badge('present', 'good') : badge('missing', 'warn')} <code>${escapeHtml(a.path)}</code> <span class="quiet">${escapeHtml(a.purpose)}</span></li>`).join('')
  const m = r.plan.migration_summary
  return `<section class="card wide hero">
  <div><h2>Readiness</h2><div id="status" data-status="${escapeHtml(r.summary.status)}">${badge(r.summary.status, tone)}</div>
    <p class="quiet">plan <strong>${escapeHtml(r.plan.readiness)}</strong> · boot <strong>${escapeHtml(r.summary.boot_status)}</strong> · ${r.summary.required_blocker_count} blocker(s), ${r.summary.advisory_count} advisory(ies), ${r.summary.notice_count} notice(s) · generated ${escapeHtml(r.summary.generated_at)}</p></div>
  <div class="score-box"><div id="score" data-score="${r.summary.readiness_score}">${r.summary.readiness_score}</div><div class="quiet">score / 100</div></div>
</section>
<section class="card"><h2>Boot smoke checks</h2>
  <table id="smoke-table"><thead><tr><th>path</th><th>status</th><th>ms</th><th>result</th></tr></thead><tbody>${smokeRows}</tbody></table></section>
<section class="card"><h2>Blockers</h2><div id="blockers">${blockers}</div><h2>Advisories</h2><div id="advisories">${advisories}</div></section>
<section class="card wide"><h2>Weighted checks</h2>
  <table id="checks"><thead><tr><th>check</th><th>weight</th><th>status</th><th>earned</th><th>detail</th></tr></thead><tbody>${checks}</tbody></table>
  <p class="quiet">${escapeHtml(r.plan.scoring)}</p></section>
<section class="card"><h2>Dependencies</h2>
  <table id="dependencies"><thead><tr><th>manifest</th><th>status</th><th>modules</th><th>undeclared</th><th>missing (critical)</th><th>findings</th><th>checked with</th></tr></thead><tbody>${deps}</tbody></table>
  <h3>Migrations</h3><p>${m.applied.length} applied, ${m.pending.length} pending · <code>${escapeHtml(m.migrations_dir)}</code> · database <code>${escapeHtml(m.database_path)}</code></p></section>
<section class="card"><h2>Start</h2><ul class="plain">${startup}</ul><h3>Deployment assets</h3><ul class="plain">${assets}</ul></section>`
}

function renderTruth(loaded: Loaded<TruthSummary>): string {
  if (!loaded.ok) return `<section class="card wide" id="truth"><h2>Truth</h2>${unavailable('the truth summary', loaded.error)}</section>`
  const t = loaded.data
  const rows = t.tests.map((x) => `<tr class="${x.status === 'fail' ? 'failed' : ''}"><td>${escapeHtml(x.name)}</td><td><code>${escapeHtml(x.route)}</code></td><td>${badge(x.status, x.status === 'pass' ? 'good' : x.status === 'fail' ? 'bad' : 'muted')}</td><td class="num">${fmt(x.ms)}</td><td class="quiet">${escapeHtml(x.detail ?? x.source)}</td></tr>`).join('')
  return `<section class="card wide" id="truth" data-passed="${t.passed}" data-failed="${t.failed}"><h2>Truth — known-answer tests</h2>
  <p>${badge(`${t.passed} passed`, 'good')} ${badge(`${t.failed} failed`, t.failed ? 'bad' : 'muted')} ${badge(`${t.skipped} skipped`, t.skipped ? 'warn' : 'muted')}
  · envelopes without flags: <strong>${t.envelopes_without_flags}</strong> · ran ${escapeHtml(t.ran_at)} (${escapeHtml(t.trigger)}, ${fmt(t.ms)} ms)</p>
  <table><thead><tr><th>test</th><th>route</th><th>result</th><th>ms</th><th>detail / source</th></tr></thead><tbody>${rows}</tbody></table></section>`
}

function renderMetrics(loaded: Loaded<MetricsSnapshot>): string {
  if (!loaded.ok) return `<section class="card wide" id="metrics"><h2>Live metrics</h2>${unavailable('the metrics', loaded.error)}</section>`
  const s = loaded.data
  const surfaces = Object.entries(s.requests.by_surface).map(([name, v]) =>
    `<tr><td>${escapeHtml(name)}</td><td class="num">${v.count}</td><td class="num">${v.refusals}</td><td class="num">${v.server_errors}</td><td class="num">${fmt(v.latency.p50_ms, 2)}</td><td class="num">${fmt(v.latency.p95_ms, 2)}</td><td class="num">${fmt(v.latency.p99_ms, 2)}</td></tr>`).join('')
  const top = s.requests.by_route.slice(0, 8).map((r) => `<tr><td>${escapeHtml(r.method)}</td><td><code>${escapeHtml(r.route)}</code></td><td class="num">${r.status}</td><td class="num">${r.count}</td><td class="num">${fmt(r.mean_ms, 2)}</td></tr>`).join('')
  return `<section class="card wide" id="metrics"><h2>Live metrics</h2>
  <div class="stats">
    <div><span class="k">requests</span><span class="v">${s.requests.total}</span></div>
    <div><span class="k">p50 / p95 / p99</span><span class="v">${fmt(s.latency.p50_ms, 2)} / ${fmt(s.latency.p95_ms, 2)} / ${fmt(s.latency.p99_ms, 2)} ms</span></div>
    <div><span class="k">error rate (5xx)</span><span class="v">${pct(s.error_rate)}</span></div>
    <div><span class="k">event loop</span><span class="v">${fmt(s.event_loop.delay_ms, 1)} ms · ${pct(s.event_loop.utilization)}</span></div>
    <div><span class="k">memory (rss / heap)</span><span class="v">${mib(s.memory.rss_bytes)} / ${mib(s.memory.heap_used_bytes)}</span></div>
    <div><span class="k">mill</span><span class="v">${s.mill.running} running · ${s.mill.queue_size} queued · ${s.mill.threads} threads · ${pct(s.mill.utilization)}</span></div>
    <div><span class="k">database</span><span class="v">${s.database.file_bytes === null ? escapeHtml(s.database.note ?? 'n/a') : `${mib(s.database.file_bytes)} + WAL ${mib(s.database.wal_bytes)}`}</span></div>
    <div><span class="k">occupancy</span><span class="v">${escapeHtml(s.occupancy)} · up ${s.uptime_s} s</span></div>
  </div>
  <div class="two"><table><thead><tr><th>surface</th><th>requests</th><th>4xx</th><th>5xx</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th></tr></thead><tbody>${surfaces}</tbody></table>
  <table><thead><tr><th>method</th><th>route</th><th>status</th><th>count</th><th>mean ms</th></tr></thead><tbody>${top}</tbody></table></div></section>`
}

const STYLE = `
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2330;--quiet:#5d6675;--line:#e2e5ea;--good:#137a3d;--good-bg:#e3f5ea;--warn:#8a5a00;--warn-bg:#fff2d6;--bad:#a4161a;--bad-bg:#fde4e4;--muted-bg:#eceef2}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--ink)}
header{display:flex;align-items:center;justify-content:space-between;gap:1rem;padding:.8rem 1.5rem;background:#1d2330;color:#fff;flex-wrap:wrap}
header h1{font-size:1.1rem;margin:0}header nav a{color:#cfe0ff;margin-left:1rem;text-decoration:none}header nav a:hover{text-decoration:underline}
main{max-width:1280px;margin:1rem auto;padding:0 1rem;display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem 1.2rem;min-width:0}.wide{grid-column:1/-1}
.hero{display:flex;justify-content:space-between;align-items:center;gap:1rem}
h2{font-size:1rem;margin:.1rem 0 .6rem}h3{font-size:.9rem;margin:1rem 0 .4rem}
table{width:100%;border-collapse:collapse;font-size:13px}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--quiet);font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}tr.failed td{background:var(--bad-bg)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-weight:600;font-size:12px}
.good{color:var(--good);background:var(--good-bg)}.warn{color:var(--warn);background:var(--warn-bg)}.bad{color:var(--bad);background:var(--bad-bg)}.muted{color:var(--quiet);background:var(--muted-bg)}
#status .badge{font-size:1.3rem;padding:.2rem .9rem}.score-box{text-align:center}#score{font-size:2.6rem;font-weight:700;font-variant-numeric:tabular-nums}
.quiet,.na{color:var(--quiet)}.error{color:var(--bad)}
ul.issues{margin:0;padding-left:1.1rem}ul.issues li{margin:.25rem 0;padding:.1rem .3rem;border-radius:4px}ul.plain{list-style:none;margin:0;padding:0}ul.plain li{margin:.25rem 0}
.step{display:inline-block;min-width:4rem;color:var(--quiet)}
.stats{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:.6rem;margin-bottom:1rem}.stats div{background:var(--bg);border-radius:6px;padding:.5rem .7rem}
.stats .k{display:block;color:var(--quiet);font-size:12px}.stats .v{font-weight:600;font-variant-numeric:tabular-nums}
.two{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
#login{max-width:28rem;margin:3rem auto;grid-column:1/-1}#login input{width:100%;padding:.5rem;font:inherit;margin:.5rem 0;border:1px solid var(--line);border-radius:6px}
#login button,#refresh{padding:.45rem 1rem;font:inherit;border:0;border-radius:6px;background:#2457c5;color:#fff;cursor:pointer}
@media (max-width:900px){main{grid-template-columns:1fr}.stats{grid-template-columns:repeat(2,1fr)}.two{grid-template-columns:1fr}}
`

// The token is kept in sessionStorage only (gone when the tab closes) and sent as a bearer to /admin?partial=1.
const SCRIPT = `
(() => {
  const KEY = 'ncm-admin-token';
  const panel = document.getElementById('panel');
  const note = document.getElementById('refresh-note');
  const locked = document.body.dataset.locked === '1';
  async function refresh() {
    const token = sessionStorage.getItem(KEY);
    if (locked && !token) return;
    const headers = { accept: 'text/html' };
    if (token) headers.authorization = 'Bearer ' + token;
    note.textContent = 'refreshing…';
    try {
      const res = await fetch('/admin?partial=1', { headers, cache: 'no-store' });
      if (res.status === 401 || res.status === 403) {
        sessionStorage.removeItem(KEY);
        panel.innerHTML = '<section class="card wide"><p class="error">The token was refused (' + res.status + '). Enter it again.</p></section>' + loginForm();
        bindLogin();
        note.textContent = '';
        return;
      }
      panel.innerHTML = await res.text();
      note.textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (err) {
      note.textContent = 'refresh failed: ' + err.message;
    }
  }
  function loginForm() { return document.getElementById('login-template').innerHTML; }
  function bindLogin() {
    const form = document.getElementById('login-form');
    if (!form) return;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = document.getElementById('token').value.trim();
      if (!value) return;
      sessionStorage.setItem(KEY, value);
      refresh();
    });
  }
  document.getElementById('refresh').addEventListener('click', refresh);
  bindLogin();
  if (locked && sessionStorage.getItem(KEY)) refresh();
  setInterval(() => { if (!document.hidden && document.getElementById('status')) refresh(); }, 30000);
})();
`

const LOGIN = `<section class="card" id="login"><h2>Admin token</h2>
<p class="quiet">This host has an ADMIN_TOKEN. Enter it (or a grant with <code>admin:read</code>); it is kept in this tab's sessionStorage only.</p>
<form id="login-form"><input id="token" type="password" autocomplete="off" placeholder="Bearer token" aria-label="admin token"><button type="submit">Open</button></form></section>`

export function renderAdminPage(options: { panel: string | null; hub: string; ncm: string }): string {
  const locked = options.panel === null
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>NCM Hub — admin / go-live</title><style>${STYLE}</style></head>
<body data-locked="${locked ? '1' : '0'}">
<header><h1>NCM Hub — admin / go-live <span class="quiet">hub ${escapeHtml(options.hub)} · ncm ${escapeHtml(options.ncm)}</span></h1>
<nav><span id="refresh-note" class="quiet"></span> <button id="refresh" type="button">Refresh</button>
<a href="/docs">/docs</a><a href="/reference">/reference</a><a href="/metrics">/metrics</a><a href="/api/v1/admin/go-live/overview">overview JSON</a><a href="/api/v1/admin/truth/summary">truth JSON</a><a href="/api/v1/admin/command-post/summary">command-post JSON</a></nav></header>
<main id="panel">${locked ? LOGIN : options.panel}</main>
<template id="login-template">${LOGIN}</template>
<script>${SCRIPT}</script>
</body></html>`
}
