/**
 * The page's script: the board — a column per status, a card per task (from `task list`, with
 * `task board`'s answers to a reviewer's questions).
 */
export const BOARD = String.raw`
const STATUSES = ['pending', 'in_progress', 'needs_review', 'paused', 'failed', 'completed', 'abandoned'];

function drawBoard(tasks, cards, r) {
  return el('div', { class: 'board', id: 'board' }, STATUSES.map((st) => {
    const here = tasks.filter((t) => t.status === st);
    return el('section', { class: 'col', 'data-status': st, key: 'col:' + st, 'aria-label': st.replace('_', ' ') + ': ' + here.length },
      el('h3', {}, st.replace('_', ' ') + ' (' + here.length + ')'),
      here.map((t) => drawCard(t, cards.get(t.id), r)));
  }));
}

function drawCard(t, c, r) {
  return el('article', { class: 'card', 'data-task': t.id, key: 'task:' + t.id, 'data-owner': t.worker ? t.worker.by : '' },
    el('a', { class: 'title', href: '#/t/' + encodeURIComponent(r.checkout) + '/' + t.id }, t.id + ' ' + t.name),
    t.dependencies && t.dependencies.length ? el('div', { class: 'muted line' }, 'after ' + t.dependencies.join(', ')) : null,
    t.worker ? el('div', { class: 'muted owner line' }, (t.worker.kind === 'worker' ? 'worker: ' : 'claimed by ') + t.worker.by + ' (' + t.worker.state + ')') : null,
    t.remote_claim ? el('div', { class: 'muted remote-claim line' }, (t.remote_claim.live ? 'claimed on ' : 'claim ran out on ') + t.remote_claim.remote + ' by ' + (t.remote_claim.owner || '?') + (t.remote_claim.machine ? ' on ' + t.remote_claim.machine : '')) : null);
}
`;
