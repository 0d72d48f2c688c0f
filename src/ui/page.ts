/**
 * The one page `sow ui` serves: plain HTML, CSS and script, no build step, no file loaded from
 * anywhere. Three views by the address's fragment — all projects (`#/`), a project (`#/p/<checkout>`),
 * a task (`#/t/<checkout>/<id>`) — each drawn from `/api/view` (sow commands' `--json` data) and
 * drawn again on every change the server tells (`/api/changes`). Text from files reaches the page
 * only through textContent, never as markup.
 */
export const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>sow</title>
<style>
:root { font: 14px/1.45 system-ui, sans-serif; color: #1d2330; background: #f6f7f9; }
body { margin: 0; }
header { background: #1d2330; color: #fff; padding: .6rem 1rem; display: flex; gap: 1rem; align-items: baseline; }
header a { color: #9cc3ff; }
main { padding: 1rem; max-width: 1200px; }
h1 { font-size: 1.2rem; margin: .2rem 0 .8rem; } h2 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
.board { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: .5rem; }
.col { background: #eceff3; border-radius: 6px; padding: .4rem; min-height: 3rem; }
.col h3 { font-size: .8rem; text-transform: uppercase; color: #566; margin: .1rem .2rem .4rem; }
.card { background: #fff; border-radius: 4px; padding: .35rem .45rem; margin-bottom: .35rem; box-shadow: 0 1px 1px #0001; }
.card a { color: inherit; text-decoration: none; }
.graph { position: relative; margin: .4rem 0 1rem; }
.graph svg { position: absolute; left: 0; top: 0; overflow: visible; pointer-events: none; }
.graph path { fill: none; stroke: #8a94a6; stroke-width: 1.5; }
.graph path.met { stroke: #185; stroke-width: 2; } .graph path.blocked { stroke: #a23; stroke-width: 2; stroke-dasharray: 5 3; }
.node { margin-bottom: .7rem; }
.node .name { display: inline-block; background: #fff; border: 1px solid #c9ced8; border-radius: 5px; padding: .15rem .6rem; font-weight: 600; }
.node.visited .name { background: #eef1f5; }
.node.current .name { background: #2f6fdf; border-color: #2f6fdf; color: #fff; }
.node.current .name .muted { color: #dde8ff; }
.node ul { list-style: none; margin: .2rem 0 0 .8rem; padding: 0; font-size: .92rem; }
.node li { margin: .1rem 0; }
.here { font-weight: 400; font-size: .8rem; margin-left: .4rem; }
.fresh { color: #185; } .stale { color: #a60; }
.blocked { color: #a23; } .met { color: #185; }
pre { background: #fff; padding: .5rem; overflow: auto; max-height: 24rem; border: 1px solid #e3e6eb; }
button { font: inherit; padding: .25rem .6rem; margin: .15rem; cursor: pointer; }
#error { color: #a23; white-space: pre-wrap; }
.muted { color: #667; }
</style></head>
<body>
<header><strong>sow</strong><a href="#/">All projects</a><span id="live" class="muted">connecting…</span></header>
<main><div id="error"></div><div id="view"></div></main>
<script>
"use strict";
const token = new URLSearchParams(location.search).get('token') || '';
const $view = document.getElementById('view');
const $error = document.getElementById('error');
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k === 'href') e.setAttribute('href', v); else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const kid of kids.flat()) if (kid !== undefined && kid !== null) e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return e;
};
const route = () => {
  const parts = location.hash.replace(/^#\\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'p') return { name: 'project', checkout: parts[1] || '.' };
  if (parts[0] === 't') return { name: 'task', checkout: parts[1] || '.', id: parts[2] || '' };
  return { name: 'projects' };
};
async function view(r) {
  const q = new URLSearchParams({ token, name: r.name });
  if (r.checkout) q.set('checkout', r.checkout);
  if (r.id) q.set('id', r.id);
  const res = await fetch('/api/view?' + q);
  return res.json();
}
async function act(body) {
  const res = await fetch('/api/action', { method: 'POST', headers: { 'content-type': 'application/json', 'x-sow-token': token }, body: JSON.stringify(body) });
  const r = await res.json();
  $error.textContent = r.ok ? '' : (r.error.message + (r.error.hint ? '\\n' + r.error.hint : ''));
  await draw();
  return r;
}
const part = (d, name) => (d[name] && d[name].ok ? d[name].data : null);
const failed = (d, name) => (d[name] && !d[name].ok ? d[name].error.message : null);

function drawProjects(d) {
  const rows = part(d, 'status') || [];
  return [el('h1', {}, 'All projects'),
    rows.length === 0 ? el('p', { class: 'muted' }, 'No project in this repository or its worktrees.') :
    el('table', { id: 'projects' }, el('tr', {}, ['Checkout', 'Project', 'Type', 'State', 'Branch', 'Tasks done', 'Live workers', 'Cost'].map((h) => el('th', {}, h))),
      rows.map((w) => {
        const more = (part(d, 'details') || {})[w.rel] || {};
        const u = more.usage;
        const cost = !u ? '—' : [u.cost_usd !== undefined ? '$' + u.cost_usd.toFixed(2) : '', u.input_tokens !== undefined ? (u.input_tokens + (u.output_tokens || 0)) + ' tokens' : ''].filter(Boolean).join(', ') || u.runs + ' runs';
        return el('tr', { 'data-checkout': w.rel },
          el('td', {}, w.rel), el('td', {}, el('a', { href: '#/p/' + encodeURIComponent(w.rel) }, w.project.name)), el('td', {}, more.type || ''), el('td', { class: 'project-state' }, w.project.state),
          el('td', {}, w.project.branch || w.branch || ''), el('td', {}, w.project.tasks.done + '/' + w.project.tasks.total), el('td', {}, String((w.project.sessions || []).length)), el('td', { class: 'cost' }, cost));
      }))];
}

function drawProject(d, r) {
  const s = part(d, 'status');
  if (!s) return [el('p', {}, failed(d, 'status') || 'No project here.')];
  const g = part(d, 'graph lifecycle');
  const tasks = part(d, 'task list') || [];
  const outputs = part(d, 'output list') || [];
  const workers = part(d, 'agent ps') || [];
  const history = part(d, 'project history') || [];
  const checks = part(d, 'check list') || [];
  const statuses = ['pending', 'in_progress', 'needs_review', 'paused', 'failed', 'completed', 'abandoned'];
  return [
    el('h1', {}, s.name + ' ', el('span', { class: 'muted' }, '(' + s.type + ', ' + s.branch + ')')),
    el('p', {}, 'State: ', el('strong', { id: 'state' }, s.state), ' — ', s.purpose || ''),
    el('h2', {}, 'Lifecycle'),
    g ? drawLifecycle(g, s, history) : el('p', { class: 'muted' }, failed(d, 'graph lifecycle') || ''),
    el('h2', {}, 'Next'),
    el('ul', { id: 'next' }, (s.next || []).map((n) => el('li', { class: n.blocked ? 'blocked' : 'met' }, n.event + ' → ' + n.to + (n.guardDescription ? ': ' + n.guardDescription : '') + (n.blocked && n.hint ? ' — ' + n.hint : '')))),
    el('div', {}, el('button', { id: 'advance', onclick: () => act({ action: 'advance', checkout: r.checkout }) }, 'Advance'),
      s.state.endsWith('Planning') ? el('button', { id: 'approve-tasks', onclick: () => act({ action: 'approve_tasks', checkout: r.checkout }) }, 'Approve the tasks') : null),
    el('h2', {}, 'Phases'),
    el('table', { id: 'phases' }, el('tr', {}, ['Phase', 'Status', 'Iteration', 'Inputs', 'Outputs', 'Check evidence'].map((h) => el('th', {}, h))),
      s.phases.map((p) => el('tr', { 'data-phase': p.name }, el('td', {}, p.name), el('td', {}, p.enabled ? p.status : 'disabled'), el('td', {}, p.iteration), el('td', {}, p.inputs), el('td', {}, p.outputs),
        el('td', { class: 'evidence' }, evidenceIn(checks, p.name))))),
    outputs.length ? el('div', {}, el('h2', {}, 'Outputs of this phase'), el('table', { id: 'outputs' }, outputs.map((o) => el('tr', {}, el('td', {}, o.type), el('td', {}, o.path), el('td', {}, o.approved ? 'approved' : o.type === 'evidence' ? 'recorded by sow check run' : el('button', { class: 'approve', onclick: () => act({ action: 'approve_output', index: o.index, checkout: r.checkout }) }, 'Approve')))))) : null,
    el('h2', {}, 'Tasks'),
    el('div', { class: 'board', id: 'board' }, statuses.map((st) => el('div', { class: 'col', 'data-status': st }, el('h3', {}, st.replace('_', ' ')),
      tasks.filter((t) => t.status === st).map((t) => el('div', { class: 'card', 'data-task': t.id, 'data-owner': t.worker ? t.worker.by : '' }, el('a', { href: '#/t/' + encodeURIComponent(r.checkout) + '/' + t.id }, t.id + ' ' + t.name),
        t.dependencies && t.dependencies.length ? el('div', { class: 'muted' }, 'after ' + t.dependencies.join(', ')) : null,
        t.worker ? el('div', { class: 'muted owner' }, (t.worker.kind === 'worker' ? 'worker: ' : 'claimed by ') + t.worker.by + ' (' + t.worker.state + ')') : null,
        t.remote_claim ? el('div', { class: 'muted remote-claim' }, (t.remote_claim.live ? 'claimed on ' : 'claim ran out on ') + t.remote_claim.remote + ' by ' + (t.remote_claim.owner || '?') + (t.remote_claim.machine ? ' on ' + t.remote_claim.machine : '')) : null))))),
    el('h2', {}, 'Workers'),
    workers.length ? el('table', { id: 'workers' }, workers.map((w) => el('tr', {}, el('td', {}, w.task), el('td', {}, w.agent_id), el('td', { class: 'worktree' }, w.worktree && w.worktree !== '.' ? w.worktree : 'project checkout'), el('td', {}, w.state), el('td', {}, w.last_activity || ''), el('td', {}, w.state === 'running' ? el('button', { onclick: () => act({ action: 'stop', task: w.task, checkout: r.checkout }) }, 'Stop') : '')))) : el('p', { class: 'muted' }, 'No worker is running.'),
    el('h2', {}, 'History'),
    el('ol', {}, history.map((h) => el('li', {}, h.at + ' ' + h.from + ' → ' + h.to + ' (' + h.event + ', ' + h.by + ')'))),
  ];
}

/** How each declared check's newest run in a phase stands against the code as it is now (sow check list). */
function evidenceIn(checks, phase) {
  const runs = checks.flatMap((c) => (c.evidence || []).filter((e) => e.phase === phase));
  if (runs.length === 0) return '—';
  return runs.map((e, i) => el('span', { class: e.state === 'fresh-pass' ? 'fresh' : e.state === 'stale' ? 'stale' : 'blocked', 'data-check': e.name, 'data-state': e.state },
    (i ? '; ' : '') + e.name + ': ' + (e.state === 'fresh-pass' ? 'passed, fresh' : e.state === 'stale' ? 'stale (' + (e.changed === 'command' ? 'its command changed' : 'the code changed') + ' since it passed)' : 'failed (' + (e.exit_code === null || e.exit_code === undefined ? 'timed out or killed' : 'exit ' + e.exit_code) + ')')));
}

const SVG = 'http://www.w3.org/2000/svg';
const svgEl = (tag, attrs) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
};
const LANE = 12;

/**
 * The lifecycle as a graph (the data of sow graph lifecycle): one state a row, in the order a
 * project lives them (depth first from the initial state, so each state comes after those that lead
 * to it, back edges aside); under each state the transitions out of it, each with its guard and,
 * out of the current state, met or blocked now (as sow advance --dry-run judges it: status's next).
 * The arrows run in a gutter on the left, one lane each, drawn once the rows are laid out.
 * The initial state (NoProject) is where a project ends when it is deleted: drawn last, and only
 * when a transition leads to it; its own transitions (creating a project) are not drawn.
 */
function drawLifecycle(g, s, history) {
  const out = new Map(g.states.map((st) => [st.name, []]));
  for (const t of g.transitions) if (out.has(t.from)) out.get(t.from).push(t.to);
  const seen = new Set(), post = [];
  const visit = (n) => { if (seen.has(n)) return; seen.add(n); for (const m of out.get(n) || []) visit(m); post.push(n); };
  visit(g.initial);
  for (const st of g.states) visit(st.name);
  const order = post.reverse().filter((n) => n !== g.initial);
  const drawn = g.transitions.filter((t) => t.from !== g.initial);
  if (drawn.some((t) => t.to === g.initial)) order.push(g.initial);
  const row = new Map(order.map((n, i) => [n, i]));
  // Lanes: shortest spans nearest the states; a lane is shared by spans that do not overlap.
  const edges = drawn.map((t, i) => ({ t, i, a: Math.min(row.get(t.from), row.get(t.to)), b: Math.max(row.get(t.from), row.get(t.to)) }));
  const lanes = [];
  for (const e of [...edges].sort((x, y) => (x.b - x.a) - (y.b - y.a) || x.a - y.a)) {
    let k = 0;
    while ((lanes[k] || []).some((o) => o.a <= e.b && e.a <= o.b)) k++;
    (lanes[k] = lanes[k] || []).push(e);
    e.lane = k;
  }
  const gutter = 14 + Math.max(1, lanes.length) * LANE;
  const visited = new Set(history.map((h) => h.to));
  const stateOf = new Map(g.states.map((st) => [st.name, st]));
  const judged = (t) => (t.from === s.state ? (s.next || []).find((n) => n.event === t.event && n.to === t.to) : undefined);
  const nodes = order.map((name) => {
    const st = stateOf.get(name) || { name, phase: null, final: false };
    const current = name === s.state;
    return el('div', { class: 'node' + (current ? ' current' : visited.has(name) ? ' visited' : ''), 'data-state': name, style: 'margin-left:' + gutter + 'px' },
      el('span', { class: 'name' }, name, st.phase ? el('span', { class: 'muted' }, ' · ' + st.phase) : name === g.initial ? el('span', { class: 'muted' }, ' · the project deleted') : st.final ? el('span', { class: 'muted' }, ' · done') : null,
        current ? el('span', { class: 'here' }, '● now') : null),
      el('ul', {}, edges.filter((e) => e.t.from === name).map((e) => {
        const t = e.t, now = judged(t);
        return el('li', { 'data-edge': String(e.i), 'data-event': t.event, 'data-to': t.to, class: now ? (now.blocked ? 'blocked' : 'met') : '' },
          t.event + ' → ' + t.to + (t.automatic ? '' : ' (by hand)') + ': ' + (t.guardDescription ? 'when ' + t.guardDescription : 'no condition') +
          (now ? (now.blocked ? ' — blocked now' + (now.hint ? ': ' + now.hint : '') : ' — met now') : ''));
      })));
  });
  const svg = svgEl('svg', { width: gutter, height: 0, 'aria-hidden': 'true' });
  const defs = svgEl('defs');
  for (const [id, colour] of [['arrow', '#8a94a6'], ['arrow-met', '#185'], ['arrow-blocked', '#a23']]) {
    const m = svgEl('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    m.append(svgEl('path', { d: 'M0,0 L10,5 L0,10 z', style: 'fill:' + colour + ';stroke:none' }));
    defs.append(m);
  }
  svg.append(defs);
  const box = el('div', { class: 'graph', id: 'lifecycle', 'data-current': s.state }, svg, nodes);
  box.layout = () => {
    const top = box.getBoundingClientRect().top;
    svg.setAttribute('height', String(box.offsetHeight));
    svg.replaceChildren(defs);
    for (const e of edges) {
      const li = box.querySelector('li[data-edge="' + e.i + '"]');
      const to = box.querySelector('.node[data-state="' + e.t.to + '"] .name');
      if (!li || !to) continue;
      const lr = li.getBoundingClientRect(), tr = to.getBoundingClientRect();
      const y1 = lr.top - top + Math.min(lr.height, 20) / 2, y2 = tr.top - top + tr.height / 2;
      const x = gutter - 8 - e.lane * LANE;
      const cls = li.className;
      svg.append(svgEl('path', { d: 'M' + gutter + ',' + y1 + ' H' + (x + 4) + ' Q' + x + ',' + y1 + ' ' + x + ',' + (y1 + (y2 > y1 ? 4 : -4)) + ' V' + (y2 + (y2 > y1 ? -4 : 4)) + ' Q' + x + ',' + y2 + ' ' + (x + 4) + ',' + y2 + ' H' + (gutter - 1),
        class: cls, 'data-edge': String(e.i), 'marker-end': 'url(#arrow' + (cls ? '-' + cls : '') + ')' }));
    }
  };
  return box;
}

function drawTask(d, r) {
  const t = part(d, 'task get');
  if (!t) return [el('p', {}, failed(d, 'task get') || 'No such task.')];
  const events = (part(d, 'agent events') || { events: [] }).events || [];
  const inputs = part(d, 'task input list') || [];
  const outputs = part(d, 'task output list') || [];
  const live = t.owner && t.owner.kind === 'worker';
  return [
    el('p', {}, el('a', { href: '#/p/' + encodeURIComponent(r.checkout) }, '← the project')),
    el('h1', {}, t.id + ' ' + t.name),
    el('p', {}, 'Status: ', el('strong', { id: 'task-status' }, t.status), ' · iteration ' + t.iteration + (t.owner ? ' · owned by ' + t.owner.by : '')),
    live ? el('button', { id: 'stop', onclick: () => act({ action: 'stop', task: t.id, checkout: r.checkout }) }, 'Stop its worker') : null,
    t.session ? el('div', {}, el('input', { id: 'prompt', placeholder: 'What to tell the worker', size: '60' }), el('button', { id: 'resume', onclick: () => act({ action: 'resume', task: t.id, prompt: document.getElementById('prompt').value, checkout: r.checkout }).then((res) => res.ok && (document.getElementById('prompt').value = '')) }, 'Resume')) : null,
    el('h2', {}, 'Description'), el('pre', { id: 'description' }, ((part(d, 'description') || {}).value) || ''),
    el('div', {}, el('textarea', { id: 'feedback-text', rows: '3', cols: '60', placeholder: 'Feedback: what to change, and why' }),
      el('button', { id: 'feedback', onclick: () => act({ action: 'feedback', task: t.id, text: document.getElementById('feedback-text').value, checkout: r.checkout }).then((res) => res.ok && (document.getElementById('feedback-text').value = '')) }, 'Add feedback')),
    el('h2', {}, 'Inputs'), el('ul', { id: 'inputs' }, inputs.map((a) => el('li', {}, a.type + ': ' + a.path + (a.metadata && a.metadata.status ? ' (' + a.metadata.status + ')' : '')))),
    el('h2', {}, 'Outputs'), el('ul', {}, outputs.map((a) => el('li', {}, a.type + ': ' + a.path))),
    el('h2', {}, 'What it changed'), el('pre', { id: 'diff' }, ((part(d, 'task diff') || {}).diff) || 'no modified file recorded'),
    el('h2', {}, 'Log'), el('pre', { id: 'log' }, ((part(d, 'log') || {}).value) || 'nothing logged yet'),
    el('h2', {}, "Its worker's events"),
    el('pre', { id: 'events' }, events.map((e) => e.at.slice(11, 19) + ' ' + (MARKS[e.kind] || ' ') + ' ' + e.text).join('\\n') || 'none yet'),
  ];
}

const MARKS = { session: '◦', message: '›', tool_call: '●', finished: '✓', error: '✗', usage: '$', text: ' ', exit: '■', agent_plan: '☐' };
let drawing = false, again = false, drawnAt = null;
async function draw() {
  if (drawing) { again = true; return; }
  drawing = true;
  try {
    do {
      again = false;
      const r = route();
      const res = await view(r);
      if (!res.ok) { $error.textContent = res.error.message; continue; }
      const kids = r.name === 'project' ? drawProject(res.data, r) : r.name === 'task' ? drawTask(res.data, r) : drawProjects(res.data);
      // What a person is typing outlives the redraw a change brings (a worker's events arrive while they write feedback).
      const here = location.hash;
      const typed = here === drawnAt ? [...$view.querySelectorAll('input[id], textarea[id]')].map((e) => [e.id, e.value]) : [];
      const focused = here === drawnAt && document.activeElement && document.activeElement.id;
      $view.replaceChildren(...kids.filter(Boolean));
      drawnAt = here;
      for (const [id, value] of typed) { const e = document.getElementById(id); if (e) e.value = value; }
      if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
      layout();
      document.body.dataset.drawn = String(Number(document.body.dataset.drawn || 0) + 1);
    } while (again);
  } finally { drawing = false; }
}
/** The lifecycle's arrows follow the rows as they are laid out (again when the window's width changes them). */
function layout() {
  const g = document.getElementById('lifecycle');
  if (g && g.layout) g.layout();
}
window.addEventListener('resize', layout);
window.addEventListener('hashchange', draw);
const changes = new EventSource('/api/changes?token=' + encodeURIComponent(token));
changes.addEventListener('open', () => { document.getElementById('live').textContent = 'live'; });
changes.addEventListener('error', () => { document.getElementById('live').textContent = 'reconnecting…'; });
changes.addEventListener('change', draw);
draw();
</script></body></html>
`;
