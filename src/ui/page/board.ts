// The board: a column per status, a card per task. Dragging a card (or Move) is `task set … status`, starting a worker
// is `agent spawn --detach`; a refusal is shown on the card.
export const BOARD = String.raw`
const STATUSES = ['pending', 'in_progress', 'needs_review', 'paused', 'failed', 'completed', 'abandoned'];
const words = (st) => st.replace('_', ' ');

function drawBoard(tasks, cards, r) {
  const co = r.checkout;
  const f = uiState('board:' + co, () => ({ q: '', status: '', agent: '', ready: false, moving: null }));
  const q = f.q.trim().toLowerCase();
  const qid = /^\d{1,9}$/.test(q) ? q.padStart(3, '0') : null;
  const shown = tasks.filter((t) => {
    const c = cards.get(t.id);
    if (q && !(t.name.toLowerCase().includes(q) || t.id.includes(q) || (qid && t.id === qid))) return false;
    if (f.status && t.status !== f.status) return false;
    if (f.agent && (t.assigned_agent || '') !== f.agent) return false;
    if (f.ready && !(c && c.ready)) return false;
    return true;
  });
  const agents = [...new Set(tasks.map((t) => t.assigned_agent).filter(Boolean))].sort();
  const by = new Map(STATUSES.map((st) => [st, []]));
  for (const t of shown) (by.get(t.status) || by.set(t.status, []).get(t.status)).push(t);
  const full = STATUSES.filter((st) => by.get(st).length);
  const empty = STATUSES.filter((st) => !by.get(st).length);
  const set = (k) => (ev, n) => { f[k] = n.type === 'checkbox' ? n.checked : n.value; render(); };
  // A filter by one field: all, or one of its values.
  const pick = (label, k, values, shown) => el('label', {}, label,
    el('select', { id: 'board-' + k, onchange: set(k) }, el('option', { value: '', selected: !f[k] }, 'all'),
      values.map((v) => el('option', { value: v, selected: f[k] === v }, shown(v)))));
  return el('div', { id: 'tasks' },
    el('div', { class: 'toolbar', role: 'search', 'aria-label': 'Find tasks' },
      el('label', {}, 'Search',
        el('input', { type: 'search', id: 'board-search', placeholder: 'words or an id', value: f.q,
          oninput: set('q') })),
      pick('Status', 'status', STATUSES, words),
      agents.length ? pick('Agent', 'agent', agents, (a) => a) : null,
      el('label', {}, el('input', { type: 'checkbox', id: 'board-ready', checked: f.ready, onchange: set('ready') }),
        'ready to start'),
      el('span', { class: 'muted', id: 'board-count', role: 'status' },
        shown.length === tasks.length
          ? tasks.length + ' task' + (tasks.length === 1 ? '' : 's')
          : shown.length + ' of ' + tasks.length + ' tasks')),
    empty.length > 0 && el('p', { class: 'muted folded-cols', id: 'folded' },
      'No task ' + (shown.length < tasks.length ? 'shown ' : '') + 'in: ',
      empty.map((st, i) => el('span', { class: 'col folded', 'data-status': st, key: 'fold:' + st,
        ondragover: over, ondragleave: leave, ondrop: dropOn(st, co) }, (i ? ' ' : '') + words(st)))),
    el('div', { class: 'board', id: 'board' }, full.map((st) =>
      el('section', {
        class: 'col', 'data-status': st, key: 'col:' + st, 'aria-label': words(st) + ': ' + by.get(st).length,
        ondragover: over, ondragleave: leave, ondrop: dropOn(st, co) },
        el('h3', {}, words(st) + ' (' + by.get(st).length + ')'),
        by.get(st).map((t) => drawCard(t, cards.get(t.id), co, f))))));
}

const over = (ev, n) => { ev.preventDefault(); n.classList.add('drop'); };
const leave = (ev, n) => n.classList.remove('drop');
const dropOn = (st, co) => (ev, n) => {
  ev.preventDefault();
  n.classList.remove('drop');
  const id = ev.dataTransfer.getData('text/plain');
  if (/^\d{1,9}$/.test(id)) moveCard(id, st, co);
};

/** A card moved to another status: the same guarded change as sow task set; a refusal stays on the card. */
async function moveCard(id, status, co) {
  const f = uiState('board:' + co, () => ({}));
  f.moving = null;
  S.cardRefusals.delete(id);
  const r = await act('move-' + id, { action: 'set_status', task: id, status, checkout: co },
    () => 'Task ' + id + ' is ' + words(status) + ' now.');
  if (r && !r.ok) { S.cardRefusals.set(id, S.btn.get('move-' + id).message); render(); }
}

/** Why a task can or cannot start, and whether anybody works on it. */
function cardState(t, c) {
  if (!c) return null;
  if (c.ready) return el('span', { class: 'badge ok', 'data-ready': 'true' },
    t.status === 'in_progress' ? 'ready: nobody is working on it' : 'ready');
  if ((t.status === 'pending' || t.status === 'in_progress') && c.blocked_by.length)
    return el('span', { class: 'badge warn', 'data-blocked-by': c.blocked_by.map((b) => b.id).join(',') },
      'waits for ' + c.blocked_by.map((b) => b.id + ' (' + words(b.status) + ')').join(', '));
  if (t.status === 'in_progress' && !(c.worker && c.worker.state === 'live'))
    return el('span', { class: 'badge bad', 'data-nobody': 'true' }, 'nobody is working on it');
  return null;
}

function drawCard(t, c, co, f) {
  const refusal = S.cardRefusals.get(t.id);
  const moving = f.moving === t.id;
  const agent = t.assigned_agent || 'implementer';
  return el('article', { class: 'card', 'data-task': t.id, key: 'task:' + t.id,
    'data-owner': t.worker ? t.worker.by : '', draggable: 'true',
    ondragstart: (ev) => { ev.dataTransfer.setData('text/plain', t.id); ev.dataTransfer.effectAllowed = 'move'; } },
    el('a', { class: 'title', href: '#/t/' + encodeURIComponent(co) + '/' + t.id }, t.id + ' ' + t.name),
    el('div', { class: 'line' }, cardState(t, c),
      c && c.iteration > 1 &&
        el('span', { class: 'badge', 'data-iteration': String(c.iteration) }, 'iteration ' + c.iteration),
      c && c.feedback_pending > 0 && el('span', { class: 'badge warn', 'data-feedback': String(c.feedback_pending) },
        c.feedback_pending + ' pending feedback'),
      c && c.usage && el('span', { class: 'badge', 'data-usage': 'true' }, usageText(c.usage)),
      c && el('span', { class: 'muted', title: c.completed_at || c.changed_at },
        ' ' + (c.completed_at ? words(t.status) + ' ' + ago(c.completed_at) : 'changed ' + ago(c.changed_at)))),
    t.worker && el('div', { class: 'muted owner line' },
      (t.worker.kind === 'worker' ? 'worker: ' : 'claimed by ') + t.worker.by + ' (' + t.worker.state + ')'),
    t.remote_claim && el('div', { class: 'muted remote-claim line' },
      (t.remote_claim.live ? 'claimed on ' : 'claim ran out on ') + t.remote_claim.remote + ' by ' +
        (t.remote_claim.owner || '?') + (t.remote_claim.machine ? ' on ' + t.remote_claim.machine : '')),
    el('div', { class: 'line' },
      c && c.ready && actionButton('spawn-' + t.id, 'Start ' + agent,
        { action: 'spawn', agent, task: t.id, checkout: co },
        { class: 'start', done: () => 'A worker (' + agent + ') was started on task ' + t.id + '.' }),
      moving ? el('span', { class: 'act' },
        el('label', { class: 'sr-only', for: 'move-to-' + t.id }, 'Move task ' + t.id + ' to'),
        el('select', { id: 'move-to-' + t.id },
          STATUSES.filter((st) => st !== t.status).map((st) => el('option', { value: st }, words(st)))),
        el('button', { type: 'button', class: 'move-go',
          onclick: () => moveCard(t.id, document.getElementById('move-to-' + t.id).value, co) }, 'Move'),
        el('button', { type: 'button', onclick: () => { f.moving = null; render(); } }, 'Cancel'))
        : el('button', { type: 'button', class: 'move', 'aria-label': 'Move task ' + t.id + ' to another status',
          onclick: () => {
            f.moving = t.id;
            render();
            const s = document.getElementById('move-to-' + t.id);
            if (s) s.focus();
          } }, 'Move\u2026')),
    refusal ? el('div', { class: 'refused', role: 'alert' }, refusal) : null);
}
`;
