// The command center's stylesheet and its script (panel refresh every 30 s, the live jobs panel), inlined: no CDN, no build step.

export const COMMAND_CENTER_STYLE = `  :root { --bg: #f4f6f9; --card: #fff; --ink: #1b2430; --muted: #5f6b7a; --line: #e1e6ed; --accent: #2458d6; --up: #137a43; --down: #c0392b; --warn: #b7791f; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--ink); }
  header { display: flex; align-items: center; gap: 16px; flex-wrap: wrap; padding: 14px 24px; background: #17202c; color: #fff; }
  header h1 { font-size: 18px; margin: 0; font-weight: 600; }
  header .mode { background: #f6c343; color: #17202c; border-radius: 4px; padding: 2px 8px; font-weight: 700; font-size: 12px; letter-spacing: .04em; }
  header nav { margin-left: auto; display: flex; gap: 14px; font-size: 13px; }
  header a { color: #cfe0ff; }
  header .generated { color: #aab6c5; font-size: 12px; }
  #panel-jobs { margin: 0 max(24px, calc((100% - 1552px) / 2)) 32px; }
  #panel-jobs table { table-layout: fixed; }
  #panel-jobs col.job { width: 7em; } #panel-jobs col.op { width: 15em; } #panel-jobs col.state { width: 7em; }
  #panel-jobs col.bar { width: 150px; } #panel-jobs col.action { width: 6em; }
  #panel-jobs td { white-space: normal; overflow-wrap: anywhere; vertical-align: top; }
  #panel-jobs progress { width: 100%; }
  #panel-jobs .stopped { color: var(--muted); font-size: 12px; }
  #panel-jobs button { font: inherit; font-size: 12px; padding: 1px 8px; border: 1px solid var(--down); color: var(--down); background: #fff; border-radius: 4px; cursor: pointer; }
  #panel-jobs button:disabled { opacity: .5; cursor: default; }
  #panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 16px; padding: 16px 24px 32px; max-width: 1600px; margin: 0 auto; }
  .panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; min-width: 0; overflow-x: auto; }
  .panel.wide { grid-column: 1 / -1; }
  .panel h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 0 0 10px; }
  table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
  th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
  th { font-size: 12px; color: var(--muted); font-weight: 600; }
  td.n { text-align: right; }
  td.small { font-size: 12px; color: var(--muted); white-space: normal; }
  .up { color: var(--up); } .down { color: var(--down); }
  .empty { color: var(--muted); font-style: italic; margin: 6px 0; }
  .badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; font-weight: 600; background: #eef1f5; }
  .badge.long { background: #dff3e7; color: var(--up); } .badge.short { background: #fbe3e0; color: var(--down); }
  .badge.synthetic { background: #efe7fb; color: #5b3c99; } .badge.import { background: #e3edff; color: var(--accent); }
  .kpis { display: grid; grid-template-columns: repeat(4, 1fr); gap: 8px; margin: 0 0 12px; }
  .kpis div { background: #f7f9fc; border-radius: 6px; padding: 8px 10px; }
  .kpis dt { font-size: 11px; color: var(--muted); text-transform: uppercase; } .kpis dd { margin: 2px 0 0; font-size: 16px; font-weight: 600; }
  .components { list-style: none; padding: 0; margin: 0; } .components li { padding: 4px 0; border-bottom: 1px solid var(--line); }
  .dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 6px; background: var(--muted); }
  .dot.ok { background: var(--up); } .dot.degraded { background: var(--warn); } .dot.down { background: var(--down); }
  .status { font-weight: 600; margin: 0 0 8px; }
  .caption { color: var(--muted); font-size: 13px; margin: 0 0 6px; }
  .more { font-size: 12px; color: var(--muted); margin: 8px 0 0; }
  .panel a { color: var(--accent); }
  #equity-chart { width: 100%; height: auto; max-height: 340px; display: block; }
  #equity-chart .line { fill: none; stroke: var(--accent); stroke-width: 2; vector-effect: non-scaling-stroke; }
  #equity-chart .area { fill: rgba(36, 88, 214, .08); stroke: none; }
  #equity-chart .grid { stroke: var(--line); stroke-width: 1; }
  #equity-chart .start { stroke: var(--muted); stroke-dasharray: 4 4; stroke-width: 1; }
  #equity-chart .axis, #equity-chart .chart-empty { fill: var(--muted); font-size: 12px; }
`

export const COMMAND_CENTER_SCRIPT = `  // Refreshes the panels in place every 30 s while the tab is visible; the page works without it.
  setInterval(async () => {
    if (document.hidden) return;
    try {
      const res = await fetch('/command-center', { headers: { accept: 'text/html' } });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const next = doc.getElementById('panels');
      if (next) document.getElementById('panels').replaceWith(next);
      const stamp = doc.getElementById('generated-at');
      if (stamp) document.getElementById('generated-at').replaceWith(stamp);
    } catch { /* offline: keep what is shown */ }
  }, 30000);

  // The jobs panel: the newest jobs every 2 s; each queued or running job is followed on its SSE stream.
  const streams = new Map();
  const cell = (text) => { const td = document.createElement('td'); td.textContent = text; return td; };
  function detail(p) {
    const parts = [p.phase];
    if (p.done !== null) parts.push(p.total !== null ? p.done + '/' + p.total : String(p.done));
    for (const [k, v] of Object.entries(p.counters)) if (!k.startsWith('configs_')) parts.push(k + ' ' + v);
    if (p.eta_s !== null) parts.push('eta ' + p.eta_s + ' s');
    return parts.join(' · ');
  }
  // The bar says what the job is doing: a running job with a known fraction fills, one without (a SAT search) is the
  // browser's indeterminate bar; a finished job's bar is full and still; a queued, failed or cancelled one has none.
  function progressCell(job) {
    const td = document.createElement('td');
    const p = job.progress;
    if (job.state === 'running' || job.state === 'succeeded') {
      const bar = document.createElement('progress');
      bar.max = 1;
      if (job.state === 'succeeded') bar.value = 1;
      else if (p.fraction !== null) bar.value = p.fraction;
      td.append(bar);
    } else {
      td.className = 'stopped';
      td.textContent = job.state === 'queued' ? 'waiting' : p.fraction !== null ? 'stopped at ' + Math.round(p.fraction * 100) + '%' : 'stopped';
    }
    return td;
  }
  // Cancel where the server names a cancel_url (queued or running); its answer, or its refusal, replaces the row.
  function actionCell(job) {
    const td = document.createElement('td');
    if (!job.cancel_url) return td;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Cancel';
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const res = await fetch(job.cancel_url, { method: 'DELETE' });
        // A caller job answers in the envelope (data / refuse), a trading job as the job or a problem.
        const body = await res.json();
        const enveloped = body && 'ok' in body && 'refuse' in body;
        if (res.ok) renderJob(enveloped ? body.data : body);
        else button.replaceWith(document.createTextNode(enveloped ? body.refuse.reason : body.detail || body.title || 'refused'));
      } catch { button.disabled = false; }
    });
    td.append(button);
    return td;
  }
  function renderJob(job) {
    let row = document.querySelector('#jobs-body tr[data-job="' + job.id + '"]');
    const fresh = !row;
    if (fresh) { row = document.createElement('tr'); row.dataset.job = job.id; }
    row.dataset.state = job.state;
    row.replaceChildren(cell(job.id.slice(0, 8)), cell(job.op), cell(job.state), progressCell(job), cell(detail(job.progress)));
    const result = document.createElement('td');
    result.className = 'result';
    if (job.result_url) { const a = document.createElement('a'); a.href = job.result_url; a.textContent = 'result'; result.append(a); }
    else if (job.refuse) result.textContent = job.refuse.reason;
    row.append(result, actionCell(job));
    return { row, fresh };
  }
  function follow(job) {
    if (streams.has(job.id) || job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled') return;
    const source = new EventSource(job.events_url);
    streams.set(job.id, source);
    const update = (event) => renderJob(JSON.parse(event.data).job);
    source.addEventListener('progress', update);
    for (const final of ['succeeded', 'failed', 'cancelled']) {
      source.addEventListener(final, (event) => { update(event); source.close(); streams.delete(job.id); });
    }
  }
  async function refreshJobs() {
    if (document.hidden) return;
    try {
      const res = await fetch('/api/v11/jobs?limit=10');
      if (res.status === 401 || res.status === 403) {
        document.getElementById('jobs-body').innerHTML =
          '<tr><td colspan="7" class="empty">The job list needs scope admin:read on this host (ADMIN_TOKEN is set).</td></tr>';
        return;
      }
      if (!res.ok) return;
      const { jobs } = await res.json();
      const body = document.getElementById('jobs-body');
      const rows = jobs.map((job) => {
        const live = streams.has(job.id) && document.querySelector('#jobs-body tr[data-job="' + job.id + '"]');
        const row = live || renderJob(job).row;
        follow(job);
        return row;
      });
      if (rows.length) body.replaceChildren(...rows);
      else body.innerHTML = '<tr><td colspan="7" class="empty">No jobs yet: send a research request with Prefer: respond-async.</td></tr>';
    } catch { /* offline: keep what is shown */ }
  }
  refreshJobs();
  setInterval(refreshJobs, 2000);
`
