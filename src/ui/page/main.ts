/** The page's script, last part: the route, drawing a view, following the server's change feed. */
export const MAIN = String.raw`
const $view = document.getElementById('view');
const route = () => {
  const parts = location.hash.replace(/^#\/?/, '').split('/')
    .map((p) => { try { return decodeURIComponent(p); } catch (err) { return p; } });
  if (parts[0] === 'p') return { name: 'project', checkout: parts[1] || '.' };
  if (parts[0] === 't') return { name: 'task', checkout: parts[1] || '.', id: parts[2] || '' };
  return { name: 'projects' };
};

let drawing = false, again = false;
/** Fetches the view the address names, then draws it; changes that come meanwhile make one more round. */
async function draw() {
  if (drawing) { again = true; return; }
  drawing = true;
  try {
    do {
      again = false;
      const r = route();
      const here = location.hash;
      const res = await view(r).catch(() => ({ ok: false, error: { code: 'UI_UNREACHABLE',
        message: 'sow ui does not answer: what you see may be out of date',
        hint: 'it reconnects by itself; if it was stopped, start it again with sow ui' } }));
      if (location.hash !== here) { again = true; continue; }
      if (res.ok) { S.data = res.data; S.stale = ''; }
      else if (S.drawnAt === here) S.stale = errorText(res);
      else { S.data = null; S.stale = errorText(res); }
      S.route = r;
      render();
    } while (again);
  } finally { drawing = false; }
}

/** Draws the view from what the page holds, patching the page in place; a new address starts afresh. */
function render() {
  const t0 = performance.now();
  const r = S.route || route();
  const here = location.hash;
  const fresh = S.drawnAt !== here;
  if (fresh) { S.btn.clear(); S.viewError = ''; S.notice = ''; S.cardRefusals.clear(); }
  const d = S.data;
  const kids = !d ? [] : r.name === 'project' ? drawProject(d, r)
    : r.name === 'task' ? drawTask(d, r) : drawProjects(d);
  const next = el('div', {},
    S.gone ? el('p', { class: 'banner', id: 'gone', role: 'alert' }, GONE)
      : S.lost ? el('p', { class: 'banner', id: 'lost', role: 'alert' }, LOST) : null,
    S.stale ? el('p', { class: 'banner', id: 'stale', role: 'alert' }, S.stale) : null,
    el('p', { id: 'error', class: 'banner', role: 'alert' }, S.viewError),
    el('p', { id: 'notice', class: 'note', role: 'status' }, S.notice),
    kids);
  const events = document.getElementById('events');
  const follow = !events || fresh || events.scrollHeight - events.scrollTop - events.clientHeight < 8;
  if (fresh) $view.replaceChildren(...next.childNodes); else morphKids($view, next);
  const ev = document.getElementById('events');
  if (ev && follow) ev.scrollTop = ev.scrollHeight;
  if (fresh) {
    S.drawnAt = here;
    const h = $view.querySelector('h1');
    if (h && document.activeElement === document.body && d) h.focus({ preventScroll: true });
  }
  document.title = titleOf(r, d);
  layout();
  document.body.dataset.drawn = String(Number(document.body.dataset.drawn || 0) + 1);
  document.body.dataset.drawMs = (performance.now() - t0).toFixed(1);
}

function titleOf(r, d) {
  const s = d && part(d, 'status');
  const t = d && part(d, 'task get');
  if (r.name === 'task') return (t ? 'Task ' + t.id + ' ' + t.name : 'Task ' + r.id) + ' \u2014 sow';
  if (r.name === 'project') return (s && s.name ? s.name + ' (' + s.state + ')' : 'Project') + ' \u2014 sow';
  return 'All projects \u2014 sow';
}

/** The lifecycle's arrows follow the rows as they are laid out (again when the window's width changes them). */
function layout() {
  const g = document.getElementById('lifecycle');
  if (g && g.layout) g.layout();
}
window.addEventListener('resize', layout);
window.addEventListener('hashchange', () => { S.data = null; S.docs.clear(); draw(); });

const $live = document.getElementById('live');
const LOST = 'sow ui does not answer. If it was stopped, start it again in this repository (sow ui): ' +
  'it takes this address again when it is free, and this page carries on; if it prints another address, open that one.';
const changes = new EventSource('/api/changes?token=' + encodeURIComponent(token));
let opened = false, failures = 0;
changes.addEventListener('open', () => {
  $live.textContent = 'live';
  failures = 0;
  // Back after a break (a restart): what changed meanwhile was not told, so the view is read again.
  if (opened || S.lost || S.stale) { S.lost = false; draw(); }
  opened = true;
});
changes.addEventListener('error', () => {
  // Closed for good: the server answered, but not to this page's token.
  if (changes.readyState === EventSource.CLOSED) {
    S.gone = true;
    $live.textContent = 'disconnected';
    render();
    return;
  }
  $live.textContent = 'reconnecting\u2026';
  if (++failures >= 2 && !S.lost) { S.lost = true; render(); }
});
changes.addEventListener('change', () => { refreshDocs(); draw(); });
draw();
`;

/** The page's markup around the view. */
export const MARKUP =
  String.raw`<header><strong>sow</strong><nav aria-label="Views"><a href="#/">All projects</a></nav>` +
  String.raw`<span id="live" class="muted" role="status">connecting&#x2026;</span></header>
<main><div id="announce" class="sr-only" aria-live="polite"></div><div id="view" tabindex="-1"></div></main>`;
