// A redraw builds the view with `el` and patches the page to it (`morph`), keeping elements matched by key, id or place
// so scroll, focus and typed text survive. Handlers live on `__on`; text goes in only as text nodes, never as markup.
export const DOM = String.raw`
"use strict";
const token = new URLSearchParams(location.search).get('token') || '';
/** What the page holds between redraws: per view (cleared when the address changes) and for good. */
const S = {
  data: null, drawnAt: null, viewError: '', notice: '', stale: '', gone: false, lost: false,
  btn: new Map(), ui: new Map(), docs: new Map(), cardRefusals: new Map() };
const uiState = (key, init) => { if (!S.ui.has(key)) S.ui.set(key, init()); return S.ui.get(key); };

// An element: attrs are attributes, except class, key (data-key), value (the first value of a field) and on<event>
// (a handler).
function el(tag, attrs, ...kids) {
  const e = tag === 'svg' || tag === 'path' || tag === 'defs' || tag === 'marker'
    ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  if (attrs) for (const k of Object.keys(attrs)) {
    const v = attrs[k];
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.setAttribute('class', v);
    else if (k === 'key') e.setAttribute('data-key', v);
    else if (k.startsWith('on')) (e.__on || (e.__on = {}))[k.slice(2)] = v;
    else if (k === 'value') e.value = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat(Infinity))
    if (kid !== undefined && kid !== null && kid !== false)
      e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return e;
}

// One listener per event type; 'toggle' does not bubble, so it is caught on the way down.
for (const type of [
  'click', 'input', 'change', 'keydown', 'dragstart', 'dragend', 'dragover', 'dragleave', 'drop', 'submit']) {
  document.addEventListener(type, (ev) => {
    for (let n = ev.target; n && n !== document; n = n.parentNode)
      if (n.__on && n.__on[type]) return n.__on[type](ev, n);
  });
}
document.addEventListener('toggle', (ev) => {
  const n = ev.target;
  if (n && n.__on && n.__on.toggle) n.__on.toggle(ev, n);
}, true);

/** Attributes the person changes and a redraw keeps: whether a details is open. */
const KEPT = { DETAILS: ['open'] };
const keyOf = (n) => (n.nodeType === 1 ? n.getAttribute('data-key') || (n.id ? '#' + n.id : '') : '');

/** Patches the element a to look like b (same tag), keeping a. */
function morph(a, b) {
  if (a.nodeType !== 1) { if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue; return; }
  const kept = KEPT[a.nodeName] || [];
  for (const at of [...a.attributes])
    if (!b.hasAttribute(at.name) && !kept.includes(at.name)) a.removeAttribute(at.name);
  for (const at of [...b.attributes])
    if (!kept.includes(at.name) && a.getAttribute(at.name) !== at.value) a.setAttribute(at.name, at.value);
  a.__on = b.__on; a.layout = b.layout;
  // A field's value is the person's: never overwritten by a redraw.
  if (a.nodeName === 'TEXTAREA' || a.nodeName === 'INPUT') return;
  // The lifecycle's arrows are drawn by its own layout, after the patch.
  if (a.nodeName === 'svg') return;
  morphKids(a, b);
}

function morphKids(a, b) {
  const olds = [...a.childNodes], news = [...b.childNodes];
  const byKey = new Map();
  for (const o of olds) { const k = keyOf(o); if (k) byKey.set(o.nodeName + ' ' + k, o); }
  const used = new Set();
  let p = 0;
  for (let i = 0; i < news.length; i++) {
    const n = news[i], k = keyOf(n);
    let m = null;
    if (k) { m = byKey.get(n.nodeName + ' ' + k) || null; if (m && used.has(m)) m = null; }
    else {
      while (p < olds.length && (used.has(olds[p]) || keyOf(olds[p]))) p++;
      if (p < olds.length && olds[p].nodeName === n.nodeName) m = olds[p++];
    }
    const at = a.childNodes[i] || null;
    if (m) { used.add(m); morph(m, n); if (at !== m) a.insertBefore(m, at); }
    else a.insertBefore(n, at);
  }
  // What is left after the new children was not matched by any of them.
  while (a.childNodes.length > news.length) a.removeChild(a.lastChild);
}

const GONE = 'This page lost its server: sow ui was stopped or started again with a new address. ' +
  'Run sow ui in the repository and open the address it prints.';

/** A request to the server: its answer, or, refused (403), the error that says this page lost its server. */
async function ask(url, init) {
  const res = await fetch(url, init);
  if (res.status === 403) { S.gone = true; return { ok: false, error: { code: 'UI_GONE', message: GONE } }; }
  return res.json();
}
const view = (params) => ask('/api/view?' + new URLSearchParams({ token, ...params }));

/** An error envelope in words: the message, then the hint on its own line. */
const errorText = (r) => (r && r.error ? r.error.message + (r.error.hint ? '\n' + r.error.hint : '') : 'failed');

/** Speaks a sentence to screen readers (the page's polite live region). */
function announce(text) {
  const a = document.getElementById('announce');
  if (a) { a.textContent = ''; setTimeout(() => { a.textContent = text; }, 30); }
}

/** Runs an action: its button shows it pending, then what came of it (done words a success); then a redraw. */
async function act(key, body, done) {
  if (S.btn.get(key) && S.btn.get(key).state === 'pending') return null;
  S.btn.set(key, { state: 'pending' });
  render();
  const r = await ask('/api/action', { method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sow-token': token }, body: JSON.stringify(body) })
    .catch((err) => ({ ok: false, error: { code: 'UI_UNREACHABLE',
      message: 'sow ui does not answer (' + err.message + ')',
      hint: 'is it still running? start it again with sow ui' } }));
  // An action of several commands that failed part way says what was done before.
  const before = !r.ok && r.steps && r.steps.length
    ? 'Done: ' + r.steps.map((x) => 'sow ' + x.command).join(', ') + '. Then sow ' + r.failed + ' failed: '
    : '';
  const text = r.ok ? (done ? done(r) : 'Done.') : before + errorText(r);
  S.btn.set(key, { state: r.ok ? 'ok' : 'failed', message: text });
  S.viewError = r.ok ? '' : text;
  // What came of it stays in the view, also when its button is gone with what it changed.
  S.notice = r.ok ? text : '';
  announce(text);
  await draw();
  return r;
}

/** A button that runs an action, with its state beside it: pending, done, or why it failed. */
function actionButton(key, label, body, opts) {
  const o = opts || {};
  const st = S.btn.get(key);
  const pending = st && st.state === 'pending';
  return el('span', { class: 'act', key: 'act-' + key },
    el('button', { type: 'button', id: o.id, key, class: o.class, 'aria-busy': pending ? 'true' : null,
      'aria-describedby': st && !pending ? 'res-' + key : null,
      onclick: () => {
        const b = typeof body === 'function' ? body() : body;
        if (b) act(key, b, o.done).then((r) => r && o.after && o.after(r));
      } },
      pending ? label + '\u2026' : label),
    st && !pending ? el('span', { id: 'res-' + key, class: 'result ' + st.state }, st.message) : null);
}

/** A table that stacks on a narrow screen: a row of headings, then rows of [attributes, ...cells]; a cell is
 * labelled by its column, and is a td of its own when it needs a class. */
function stackTable(id, heads, rows) {
  return el('table', { id, class: 'stack' }, el('tr', {}, heads.map((h) => el('th', { scope: 'col' }, h))),
    rows.map(([attrs, ...cells]) => el('tr', attrs, cells.map((c, k) => {
      const td = c instanceof Node && c.nodeName === 'TD' ? c : el('td', {}, c);
      if (heads[k]) td.setAttribute('data-label', heads[k]);
      return td;
    }))));
}

/** The data of one command of the view, or null when it failed (its error: failed()). */
const part = (d, name) => (d && d[name] && d[name].ok ? d[name].data : null);
const failed = (d, name) => (d && d[name] && !d[name].ok ? errorText(d[name]) : null);

/** "3 min ago", from an ISO time. */
function ago(iso) {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (!isFinite(s)) return '';
  if (s < 60) return 'just now';
  if (s < 3600) return Math.round(s / 60) + ' min ago';
  if (s < 86400) return Math.round(s / 3600) + ' h ago';
  return Math.round(s / 86400) + ' d ago';
}
/** Tokens and cost of some runs: "12,345 tokens, $0.42". */
function usageText(u) {
  if (!u) return '';
  const tokens = (u.input_tokens || 0) + (u.output_tokens || 0);
  return [tokens ? tokens.toLocaleString('en') + ' tokens' : '',
    u.cost_usd !== undefined ? '$' + u.cost_usd.toFixed(2) : ''].filter(Boolean).join(', ') ||
    (u.runs ? u.runs + ' run' + (u.runs === 1 ? '' : 's') + ', nothing reported' : '');
}
`;
