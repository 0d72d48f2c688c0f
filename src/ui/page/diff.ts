// A task's diffs, a table per file with light highlighting and a comment button per line that adds to the review's
// feedback. `parsePatch` and `tokens` are pure, checked in Node by diff.test.ts.
export const DIFF = String.raw`
/** A file's patch \u2192 its hunks, each line with its kind (add, del, ctx) and its numbers on the old and new side. */
function parsePatch(patch) {
  const hunks = [];
  let h = null, oldN = 0, newN = 0;
  for (const line of String(patch).split('\n')) {
    const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
    if (m) {
      h = { header: line, context: m[3].trim(), lines: [] };
      hunks.push(h);
      oldN = Number(m[1]);
      newN = Number(m[2]);
      continue;
    }
    if (!h) continue;
    const c = line[0];
    if (c === '+') h.lines.push({ kind: 'add', text: line.slice(1), new: newN++ });
    else if (c === '-') h.lines.push({ kind: 'del', text: line.slice(1), old: oldN++ });
    else if (c === ' ' || line === '') h.lines.push({ kind: 'ctx', text: line.slice(1), old: oldN++, new: newN++ });
    else if (c === '\\') h.lines.push({ kind: 'note', text: line.slice(2) });
  }
  return hunks;
}

const KEYWORDS = new Set((
  'abstract and as async await break case catch class const continue def default defer del delete do ' +
  'elif else enum except export extends false final finally fn for from func function go if impl ' +
  'import in instanceof interface is lambda let match mod module mut new nil none not null or package ' +
  'pass private protected pub public raise return self static struct super switch this throw throws ' +
  'trait true try type typeof undefined use var void while with yield'
).split(' '));
// Four alternatives, one capture group each: a comment, a string, a number, a word.
const TOKEN = new RegExp([
  /(\/\/.*$|#.*$|\/\*.*?(?:\*\/|$))/,
  /("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|\x60(?:[^\x60\\]|\\.)*\x60?)/,
  /(\b\d[\d_.]*(?:e[+-]?\d+)?\b|\b0x[\da-f]+\b)/,
  /([A-Za-z_$][\w$]*)/,
].map((r) => r.source).join('|'), 'gi');

/** One line of code \u2192 [class, text] pieces (class '' for plain text): comments, strings, numbers, keywords. */
function tokens(text, lang) {
  const hash = /^(py|rb|sh|bash|zsh|yaml|yml|toml|r|pl|mk|makefile|dockerfile|conf|ini|cfg)$/i.test(lang || '');
  const out = [];
  let last = 0;
  TOKEN.lastIndex = 0;
  for (let m; (m = TOKEN.exec(text)); ) {
    // '#' begins a comment only in some languages; elsewhere the rest of the line stays plain.
    if (m[1] && m[1][0] === '#' && !hash) break;
    if (m.index > last) out.push(['', text.slice(last, m.index)]);
    const cls = m[1] ? 'c' : m[2] ? 's' : m[3] ? 'n' : KEYWORDS.has(m[4]) ? 'k' : '';
    out.push([cls, m[0]]);
    last = m.index + m[0].length;
    if (m[0].length === 0) TOKEN.lastIndex++;
  }
  if (last < text.length) out.push(['', text.slice(last)]);
  return out.reduce((acc, t) => {
    const p = acc[acc.length - 1];
    if (p && p[0] === t[0]) p[1] += t[1]; else acc.push(t.slice());
    return acc;
  }, []);
}

const extOf = (path) =>
  (/\.([\w]+)$/.exec(path) || [])[1] || (/(^|\/)(Makefile|Dockerfile)$/.exec(path) || [])[2] || '';

// What the task changed, per file. comments: the review's line comments by key; editing: the key of the line whose
// comment box is open.
function drawChanges(ch, review) {
  if (!ch.files.length) return el('p', { class: 'muted', id: 'changes-none' }, 'No change to a file yet.');
  return el('div', { id: 'changes' }, ch.files.map((f) => drawFile(f, review)));
}

function drawFile(f, review) {
  const hunks = f.binary ? [] : parsePatch(f.patch);
  const lang = extOf(f.path);
  const adds = hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind === 'add').length, 0);
  const dels = hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind === 'del').length, 0);
  const rows = [];
  const note = (text) => el('tr', { class: 'hunk' }, el('td', { class: 'n' }), el('td', { class: 'n' }),
    el('td', { class: 't' }, text));
  for (const h of hunks) {
    rows.push(note(h.header));
    h.lines.forEach((l, k) => {
      if (l.kind === 'note') {
        rows.push(note(l.text));
        return;
      }
      const side = l.kind === 'del' ? 'old' : 'new';
      const line = side === 'old' ? l.old : l.new;
      const ckey = f.path + '\n' + side + '\n' + line;
      const label = (side === 'old' ? 'Comment on the removed line ' : 'Comment on line ') + line + ' of ' + f.path;
      const comment = review.comments.get(ckey);
      const open = review.editing === ckey;
      const numButton = (n, mine) => (n === undefined ? '' : mine
        ? el('button', { type: 'button', class: 'line-comment', 'aria-label': label, title: label,
          'data-file': f.path, 'data-line': String(line), 'data-side': side,
          onclick: () => {
            review.editing = ckey;
            render();
            const t = document.getElementById('line-comment-text');
            if (t) t.focus();
          } }, String(n))
        : String(n));
      rows.push(el('tr', { class: l.kind, key: 'l' + h.header + ':' + k },
        el('td', { class: 'n' }, numButton(l.old, side === 'old')),
        el('td', { class: 'n' }, numButton(l.new, side === 'new')),
        el('td', { class: 't' }, tokens(l.text, lang).map(([c, t]) => (c ? el('span', { class: 'tk-' + c }, t) : t)))));
      if (comment && !open) rows.push(el('tr', { class: 'comment', key: 'c' + ckey },
        el('td', { colspan: '3' }, el('strong', {}, 'Your comment: '), comment.text, ' ',
          el('button', { type: 'button', onclick: () => { review.editing = ckey; render(); } }, 'Edit'),
          el('button', { type: 'button', onclick: () => { review.comments.delete(ckey); render(); } }, 'Remove'))));
      if (open) rows.push(el('tr', { class: 'comment', key: 'e' + ckey }, el('td', { colspan: '3' },
        el('label', { for: 'line-comment-text' },
          'Comment on ' + lineName({ file: f.path, side, line })),
        el('textarea', { id: 'line-comment-text', rows: '3', value: comment ? comment.text : '' }),
        el('button', { type: 'button', id: 'line-comment-add', class: 'primary', onclick: () => {
          const t = document.getElementById('line-comment-text').value.trim();
          if (t) review.comments.set(ckey, { file: f.path, line, side, code: l.text, text: t });
          else review.comments.delete(ckey);
          review.editing = null; render();
        } }, comment ? 'Save the comment' : 'Add the comment'),
        el('button', { type: 'button', onclick: () => { review.editing = null; render(); } }, 'Cancel'))));
    });
  }
  const what = (f.status === 'modified' ? 'changed' : f.status) + (f.old_path ? ' from ' + f.old_path : '') +
    (f.untracked ? ', not committed yet' : '');
  return el('details', { class: 'file', key: 'file:' + f.path, 'data-file': f.path, open: true },
    el('summary', {}, el('strong', { class: 'mono' }, f.path), ' ', el('span', { class: 'muted' }, what), ' ',
      adds ? el('span', { class: 'pass' }, '+' + adds) : '', ' ',
      dels ? el('span', { class: 'fail' }, '-' + dels) : ''),
    f.binary ? el('p', { class: 'muted' }, 'A binary file: not shown.')
      : hunks.length ? el('table', { class: 'diff' }, rows)
      : el('p', { class: 'muted' }, f.truncated ? 'Too large to show here: see sow task changes.' : 'No line changed.'),
    f.truncated && hunks.length ? el('p', { class: 'muted' }, 'Cut short: the rest is in sow task changes.') : null);
}

/** A commented line in words: "a.ts, line 3" or "a.ts, removed line 3". */
const lineName = (c) => c.file + (c.side === 'old' ? ', removed line ' : ', line ') + c.line;

/** The review's comments as feedback text: the general words, then each line's comment with its file, line and code. */
function reviewText(general, comments) {
  const parts = [];
  if (general.trim()) parts.push(general.trim());
  for (const c of comments.values())
    parts.push(lineName(c) + ':\n> ' + c.code.trim() + '\n' + c.text);
  return parts.join('\n\n');
}
`;
