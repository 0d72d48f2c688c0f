/** The list of projects, and a project's page: what waits for approval, board, workers, lifecycle, phases, history. */
export const PROJECT = String.raw`
function drawProjects(d) {
  const rows = part(d, 'status') || [];
  return [el('h1', { tabindex: '-1' }, 'All projects'),
    rows.length === 0 ? el('p', { class: 'muted' }, 'No project in this repository or its worktrees.') :
    stackTable('projects', ['Checkout', 'Project', 'Type', 'State', 'Branch', 'Tasks done', 'Live workers', 'Cost'],
      rows.filter((w) => w.project).map((w) => {
        const more = part(d, 'status of ' + w.rel) || {};
        return [{ 'data-checkout': w.rel, key: 'co:' + w.rel },
          w.rel, el('a', { href: '#/p/' + encodeURIComponent(w.rel) }, w.project.name), more.type || '',
          el('td', { class: 'project-state' }, w.project.state), w.project.branch || w.branch || '',
          w.project.tasks.done + '/' + w.project.tasks.total, String((w.project.sessions || []).length),
          el('td', { class: 'cost' }, usageText(more.usage) || '\u2014')];
      }))];
}

function drawProject(d, r) {
  const s = part(d, 'status');
  if (!s) return [el('h1', { tabindex: '-1' }, 'Project'),
    el('p', { class: 'banner', role: 'alert' }, failed(d, 'status') || 'No project here.')];
  const g = part(d, 'graph lifecycle');
  const tasks = part(d, 'task list') || [];
  const cards = new Map(((part(d, 'task board') || {}).cards || []).map((c) => [c.id, c]));
  const outputs = part(d, 'output list') || [];
  const workers = part(d, 'agent ps') || [];
  const history = part(d, 'project history') || [];
  const checks = part(d, 'check list') || [];
  const waiting = outputs.filter((o) => !o.approved && o.type !== 'evidence');
  const co = r.checkout;
  return [
    el('h1', { tabindex: '-1' }, s.name + ' ', el('span', { class: 'muted' }, '(' + s.type + ', ' + s.branch + ')')),
    el('p', {}, 'State: ', el('strong', { id: 'state' }, s.state), ' \u2014 ', s.purpose || ''),
    el('div', { class: 'toolbar' },
      actionButton('advance', 'Advance', { action: 'advance', checkout: co }, { id: 'advance', class: 'primary',
        done: (x) => 'Advanced to ' + ((x.data && (x.data.to || x.data.state)) || 'the next state') + '.' }),
      /Planning$/.test(s.state) && tasks.length > 0 && actionButton('approve-tasks', 'Approve the tasks',
        { action: 'approve_tasks', checkout: co }, { id: 'approve-tasks', done: () => 'The tasks are approved.' })),
    el('ul', { id: 'next', class: 'muted' }, (s.next || []).map((n) =>
      el('li', { class: n.blocked ? 'blocked' : 'met', key: 'n:' + n.event },
        n.event + ' \u2192 ' + n.to + (n.guardDescription ? ': ' + n.guardDescription : '') +
          (n.blocked && n.hint ? ' \u2014 ' + n.hint : '')))),
    el('h2', {}, waiting.length ? 'Waiting for your approval' : 'Outputs of this phase'),
    outputs.length ? el('div', { id: 'outputs' }, outputs.map((o) => drawOutput(d, o, co)))
      : el('p', { class: 'muted', id: 'outputs-none' }, 'This phase has no output yet.'),
    el('h2', {}, 'Tasks'),
    drawBoard(tasks, cards, r),
    el('h2', {}, 'Workers'),
    workers.length ? stackTable('workers', ['Task', 'Worker', 'Where', 'State', 'Last activity', ''],
      workers.map((w) => [{ key: 'w:' + w.task + ':' + w.agent_id },
        el('a', { href: '#/t/' + encodeURIComponent(co) + '/' + w.task }, w.task), w.agent_id,
        el('td', { class: 'worktree' }, w.worktree && w.worktree !== '.' ? w.worktree : 'project checkout'),
        w.state, w.last_activity || '',
        w.state === 'running'
          ? actionButton('stop-' + w.task, 'Stop', { action: 'stop', task: w.task, checkout: co },
            { class: 'danger', done: () => 'Its worker was stopped.' })
          : '']))
      : el('p', { class: 'muted' }, 'No worker is running.'),
    el('h2', {}, 'Lifecycle'),
    g ? drawLifecycle(g, s, history) : el('p', { class: 'muted' }, failed(d, 'graph lifecycle') || ''),
    el('h2', {}, 'Phases'),
    stackTable('phases', ['Phase', 'Status', 'Iteration', 'Inputs', 'Outputs', 'Check evidence'],
      s.phases.map((p) => [{ 'data-phase': p.name, key: 'ph:' + p.name },
        p.name, p.enabled ? p.status : 'disabled', p.iteration, p.inputs, p.outputs,
        el('td', { class: 'evidence' }, evidenceIn(d, checks, p.name, co))])),
    el('h2', {}, 'History'),
    el('ol', { id: 'history' }, history.map((h, i) =>
      el('li', { key: 'h:' + i }, h.at + ' ' + h.from + ' \u2192 ' + h.to + ' (' + h.event + ', ' + h.by + ')'))),
  ];
}

/** An output of the phase in progress, its document beside its Approve button (open while it waits). */
function drawOutput(d, o, co) {
  const doc = part(d, 'document ' + o.index);
  const assessment = o.metadata && o.metadata.assessment;
  const approve = o.approved ? el('span', { class: 'badge ok' }, 'approved')
    : o.type === 'evidence' ? el('span', { class: 'muted' }, 'recorded by sow check run')
    : actionButton('approve-' + o.index + ':' + o.path, 'Approve',
      { action: 'approve_output', index: o.index, checkout: co },
      { class: 'primary approve', done: () => o.type + ' ' + o.path + ' is approved.' });
  const body = o.type === 'evidence' ? null
    : doc ? (doc.text === null ? el('p', { class: 'muted' }, doc.file + ' does not exist yet.')
      : mdDoc(doc.text, { 'data-doc': o.path }))
    : el('p', { class: 'muted' }, failed(d, 'document ' + o.index) || '');
  return el('article',
    { class: 'output panel', key: 'out:' + o.index + ':' + o.path, 'data-index': String(o.index), 'data-type': o.type },
    el('div', { class: 'head' }, el('strong', {}, o.type), el('span', { class: 'mono' }, o.path),
      assessment && el('span',
        { class: 'badge ' + (assessment === 'pass' ? 'ok' : 'bad'), 'data-assessment': assessment },
        'assessment: ' + assessment),
      approve),
    body === null ? null : o.approved ? el('details', { key: 'doc' }, el('summary', {}, 'Read it'), body) : body);
}

/** A document read when it is opened (a log of evidence, a task's input): a details that fetches the document view. */
function lazyDoc(key, params, label, plain) {
  const got = S.docs.get(key);
  return el('details', { key: 'lazy:' + key, class: 'lazy', 'data-doc-key': key,
    ontoggle: (ev, n) => { if (n.open && !S.docs.get(key)) loadDoc(key, params); } },
    el('summary', {}, label),
    !got || got.loading ? el('p', { class: 'muted' }, 'Reading\u2026')
      : got.error ? el('p', { class: 'fail', role: 'alert' }, got.error)
      : got.text === null ? el('p', { class: 'muted' }, got.file + ' does not exist.')
      : plain ? el('pre', { tabindex: '0' }, got.text) : mdDoc(got.text));
}
async function loadDoc(key, params) {
  S.docs.set(key, { loading: true, params });
  render();
  const r = await view(Object.assign({ name: 'document' }, params))
    .catch((err) => ({ ok: false, error: { message: 'sow ui does not answer (' + err.message + ')' } }));
  const doc = r.ok && r.data.document;
  S.docs.set(key, doc && doc.ok
    ? { params, text: doc.data.text, file: doc.data.file }
    : { params, error: doc ? errorText(doc) : errorText(r) });
  render();
}
/** After a change: the documents open on the page are read again, the others forgotten. */
function refreshDocs() {
  for (const [key, got] of [...S.docs]) {
    const open = [...document.querySelectorAll('details.lazy[open]')]
      .some((n) => n.getAttribute('data-doc-key') === key);
    if (open && !got.loading) loadDoc(key, got.params); else if (!open) S.docs.delete(key);
  }
}

/** Each check's newest run in a phase against the code now (sow check list), each with its log to open. */
function evidenceIn(d, checks, phase, co) {
  const runs = checks.flatMap((c) => (c.evidence || []).filter((e) => e.phase === phase));
  if (runs.length === 0) return '\u2014';
  const outputs = part(d, 'outputs of ' + phase) || [];
  return runs.map((e, i) => {
    const out = outputs.find((o) => o.type === 'evidence' && o.path === e.evidence);
    return el('div', { key: 'ev:' + e.name },
      el('span', { class: e.state === 'fresh-pass' ? 'fresh' : e.state === 'stale' ? 'stale' : 'blocked',
        'data-check': e.name, 'data-state': e.state },
        e.name + ': ' + (e.state === 'fresh-pass' ? 'passed, fresh'
          : e.state === 'stale'
            ? 'stale (' + (e.changed === 'command' ? 'its command changed' : 'the code changed') + ' since it passed)'
          : 'failed (' +
            (e.exit_code === null || e.exit_code === undefined ? 'timed out or killed' : 'exit ' + e.exit_code) + ')')),
      out && lazyDoc('ev:' + co + ':' + phase + ':' + out.index + ':' + out.path,
        { checkout: co, phase, index: String(out.index) }, 'its log', true));
  });
}

// The lifecycle as a graph: a row per state in the order a project lives them, the transitions under it, arrows in a
// left gutter, one lane each, drawn once the rows are laid out.
function drawLifecycle(g, s, history) {
  const out = new Map(g.states.map((st) => [st.name, []]));
  for (const t of g.transitions) if (out.has(t.from)) out.get(t.from).push(t.to);
  const seen = new Set(), post = [];
  const visit = (n) => {
    if (seen.has(n)) return;
    seen.add(n);
    for (const m of out.get(n) || []) visit(m);
    post.push(n);
  };
  visit(g.initial);
  for (const st of g.states) visit(st.name);
  const order = post.reverse().filter((n) => n !== g.initial);
  const drawn = g.transitions.filter((t) => t.from !== g.initial);
  if (drawn.some((t) => t.to === g.initial)) order.push(g.initial);
  const row = new Map(order.map((n, i) => [n, i]));
  const edges = drawn.map((t, i) => ({
    t, i, a: Math.min(row.get(t.from), row.get(t.to)), b: Math.max(row.get(t.from), row.get(t.to)) }));
  const lanes = [];
  for (const e of [...edges].sort((x, y) => (x.b - x.a) - (y.b - y.a) || x.a - y.a)) {
    let k = 0;
    while ((lanes[k] || []).some((o) => o.a <= e.b && e.a <= o.b)) k++;
    (lanes[k] = lanes[k] || []).push(e);
    e.lane = k;
  }
  const gutter = 14 + Math.max(1, lanes.length) * 12;
  const visited = new Set(history.map((h) => h.to));
  const stateOf = new Map(g.states.map((st) => [st.name, st]));
  const judged = (t) =>
    (t.from === s.state ? (s.next || []).find((n) => n.event === t.event && n.to === t.to) : undefined);
  const nodes = order.map((name) => {
    const st = stateOf.get(name) || { name, phase: null, final: false };
    const current = name === s.state;
    return el('div', { class: 'node' + (current ? ' current' : visited.has(name) ? ' visited' : ''),
      'data-state': name, key: 'st:' + name, style: 'margin-left:' + gutter + 'px' },
      el('span', { class: 'name' }, name,
        st.phase ? el('span', { class: 'muted' }, ' \u00b7 ' + st.phase)
          : name === g.initial ? el('span', { class: 'muted' }, ' \u00b7 the project deleted')
          : st.final ? el('span', { class: 'muted' }, ' \u00b7 done') : null,
        current ? el('span', { class: 'here' }, '\u25cf now') : null),
      el('ul', {}, edges.filter((e) => e.t.from === name).map((e) => {
        const t = e.t, now = judged(t);
        return el('li', { 'data-edge': String(e.i), 'data-event': t.event, 'data-to': t.to, key: 'e:' + e.i,
          class: now ? (now.blocked ? 'blocked' : 'met') : '' },
          t.event + ' \u2192 ' + t.to + (t.automatic ? '' : ' (by hand)') + ': ' +
          (t.guardDescription ? 'when ' + t.guardDescription : 'no condition') +
          (now ? (now.blocked ? ' \u2014 blocked now' + (now.hint ? ': ' + now.hint : '') : ' \u2014 met now') : ''));
      })));
  });
  const svg = el('svg', { width: gutter, height: 0, 'aria-hidden': 'true', focusable: 'false' });
  const box = el('div', { class: 'graph', id: 'lifecycle', 'data-current': s.state }, svg, nodes);
  box.layout = () => {
    const live = document.getElementById('lifecycle');
    const sv = live.querySelector('svg');
    const top = live.getBoundingClientRect().top;
    const defs = el('defs', {}, [['arrow', 'var(--muted)'], ['arrow-met', 'var(--ok)'], ['arrow-blocked', 'var(--bad)']]
      .map(([id, colour]) => el('marker', {
        id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      el('path', { d: 'M0,0 L10,5 L0,10 z', style: 'fill:' + colour + ';stroke:none' }))));
    sv.setAttribute('height', String(live.offsetHeight));
    sv.replaceChildren(defs);
    for (const e of edges) {
      const li = live.querySelector('li[data-edge="' + e.i + '"]');
      const to = live.querySelector('.node[data-state="' + e.t.to + '"] .name');
      if (!li || !to) continue;
      const lr = li.getBoundingClientRect(), tr = to.getBoundingClientRect();
      const y1 = lr.top - top + Math.min(lr.height, 20) / 2, y2 = tr.top - top + tr.height / 2;
      const x = gutter - 8 - e.lane * 12;
      const cls = li.getAttribute('class') || '';
      sv.append(el('path', {
        d: 'M' + gutter + ',' + y1 + ' H' + (x + 4) + ' Q' + x + ',' + y1 + ' ' + x + ',' + (y1 + (y2 > y1 ? 4 : -4)) +
          ' V' + (y2 + (y2 > y1 ? -4 : 4)) + ' Q' + x + ',' + y2 + ' ' + (x + 4) + ',' + y2 + ' H' + (gutter - 1),
        class: cls, 'data-edge': String(e.i), 'marker-end': 'url(#arrow' + (cls ? '-' + cls : '') + ')' }));
    }
  };
  return box;
}
`;
