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
.state { display: inline-block; padding: .1rem .4rem; border-radius: 3px; background: #e3e6eb; margin: .1rem; }
.state.current { background: #2f6fdf; color: #fff; }
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
  const statuses = ['pending', 'in_progress', 'needs_review', 'paused', 'failed', 'completed', 'abandoned'];
  return [
    el('h1', {}, s.name + ' ', el('span', { class: 'muted' }, '(' + s.type + ', ' + s.branch + ')')),
    el('p', {}, 'State: ', el('strong', { id: 'state' }, s.state), ' — ', s.purpose || ''),
    g ? el('div', { id: 'lifecycle' }, g.states.filter((st) => st.name !== 'NoProject').map((st) => el('span', { class: 'state' + (st.name === s.state ? ' current' : '') }, st.name))) : null,
    g ? el('details', {}, el('summary', {}, 'The lifecycle: every transition, and its guard'),
      el('table', { id: 'transitions' }, el('tr', {}, ['From', 'Event', 'To', 'Guard'].map((h) => el('th', {}, h))),
        g.transitions.filter((t) => t.from !== 'NoProject').map((t) => {
          const now = t.from === s.state ? (s.next || []).find((n) => n.event === t.event && n.to === t.to) : undefined;
          return el('tr', { class: now ? (now.blocked ? 'blocked' : 'met') : (t.from === s.state ? 'current' : '') },
            el('td', {}, t.from), el('td', {}, t.event + (t.automatic ? ' (automatic)' : '')), el('td', {}, t.to),
            el('td', {}, (t.guardDescription || '—') + (now ? (now.blocked ? ' — blocked' + (now.hint ? ': ' + now.hint : '') : ' — met') : '')));
        }))) : null,
    el('h2', {}, 'Next'),
    el('ul', { id: 'next' }, (s.next || []).map((n) => el('li', { class: n.blocked ? 'blocked' : 'met' }, n.event + ' → ' + n.to + (n.guardDescription ? ': ' + n.guardDescription : '') + (n.blocked && n.hint ? ' — ' + n.hint : '')))),
    el('div', {}, el('button', { id: 'advance', onclick: () => act({ action: 'advance', checkout: r.checkout }) }, 'Advance'),
      s.state.endsWith('Planning') ? el('button', { id: 'approve-tasks', onclick: () => act({ action: 'approve_tasks', checkout: r.checkout }) }, 'Approve the tasks') : null),
    el('h2', {}, 'Phases'),
    el('table', {}, el('tr', {}, ['Phase', 'Status', 'Iteration', 'Inputs', 'Outputs'].map((h) => el('th', {}, h))), s.phases.map((p) => el('tr', {}, el('td', {}, p.name), el('td', {}, p.enabled ? p.status : 'disabled'), el('td', {}, p.iteration), el('td', {}, p.inputs), el('td', {}, p.outputs)))),
    outputs.length ? el('div', {}, el('h2', {}, 'Outputs of this phase'), el('table', { id: 'outputs' }, outputs.map((o) => el('tr', {}, el('td', {}, o.type), el('td', {}, o.path), el('td', {}, o.approved ? 'approved' : el('button', { class: 'approve', onclick: () => act({ action: 'approve_output', index: o.index, checkout: r.checkout }) }, 'Approve')))))) : null,
    el('h2', {}, 'Tasks'),
    el('div', { class: 'board', id: 'board' }, statuses.map((st) => el('div', { class: 'col', 'data-status': st }, el('h3', {}, st.replace('_', ' ')),
      tasks.filter((t) => t.status === st).map((t) => el('div', { class: 'card', 'data-task': t.id }, el('a', { href: '#/t/' + encodeURIComponent(r.checkout) + '/' + t.id }, t.id + ' ' + t.name),
        t.dependencies && t.dependencies.length ? el('div', { class: 'muted' }, 'after ' + t.dependencies.join(', ')) : null, t.worker ? el('div', { class: 'muted' }, 'worker: ' + t.worker.by + ' (' + t.worker.state + ')') : null))))),
    el('h2', {}, 'Workers'),
    workers.length ? el('table', { id: 'workers' }, workers.map((w) => el('tr', {}, el('td', {}, w.task), el('td', {}, w.agent_id), el('td', { class: 'worktree' }, w.worktree && w.worktree !== '.' ? w.worktree : 'project checkout'), el('td', {}, w.state), el('td', {}, w.last_activity || ''), el('td', {}, w.state === 'running' ? el('button', { onclick: () => act({ action: 'stop', task: w.task, checkout: r.checkout }) }, 'Stop') : '')))) : el('p', { class: 'muted' }, 'No worker is running.'),
    el('h2', {}, 'History'),
    el('ol', {}, history.map((h) => el('li', {}, h.at + ' ' + h.from + ' → ' + h.to + ' (' + h.event + ', ' + h.by + ')'))),
  ];
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
    t.session ? el('div', {}, el('input', { id: 'prompt', placeholder: 'What to tell the worker', size: '60' }), el('button', { id: 'resume', onclick: () => act({ action: 'resume', task: t.id, prompt: document.getElementById('prompt').value, checkout: r.checkout }) }, 'Resume')) : null,
    el('h2', {}, 'Description'), el('pre', { id: 'description' }, ((part(d, 'description') || {}).value) || ''),
    el('div', {}, el('textarea', { id: 'feedback-text', rows: '3', cols: '60', placeholder: 'Feedback: what to change, and why' }),
      el('button', { id: 'feedback', onclick: () => act({ action: 'feedback', task: t.id, text: document.getElementById('feedback-text').value, checkout: r.checkout }) }, 'Add feedback')),
    el('h2', {}, 'Inputs'), el('ul', { id: 'inputs' }, inputs.map((a) => el('li', {}, a.type + ': ' + a.path + (a.metadata && a.metadata.status ? ' (' + a.metadata.status + ')' : '')))),
    el('h2', {}, 'Outputs'), el('ul', {}, outputs.map((a) => el('li', {}, a.type + ': ' + a.path))),
    el('h2', {}, 'What it changed'), el('pre', { id: 'diff' }, ((part(d, 'task diff') || {}).diff) || 'no modified file recorded'),
    el('h2', {}, 'Log'), el('pre', { id: 'log' }, ((part(d, 'log') || {}).value) || 'nothing logged yet'),
    el('h2', {}, "Its worker's events"),
    el('pre', { id: 'events' }, events.map((e) => e.at.slice(11, 19) + ' ' + (MARKS[e.kind] || ' ') + ' ' + e.text).join('\\n') || 'none yet'),
  ];
}

const MARKS = { session: '◦', message: '›', tool_call: '●', finished: '✓', error: '✗', usage: '$', text: ' ', exit: '■', agent_plan: '☐' };
let drawing = false, again = false;
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
      $view.replaceChildren(...kids.filter(Boolean));
      document.body.dataset.drawn = String(Number(document.body.dataset.drawn || 0) + 1);
    } while (again);
  } finally { drawing = false; }
}
window.addEventListener('hashchange', draw);
const changes = new EventSource('/api/changes?token=' + encodeURIComponent(token));
changes.addEventListener('open', () => { document.getElementById('live').textContent = 'live'; });
changes.addEventListener('error', () => { document.getElementById('live').textContent = 'reconnecting…'; });
changes.addEventListener('change', draw);
draw();
</script></body></html>
`;
