// The page's own small markdown, safe by construction: a closed set of tags built with createElement and text nodes
// (never innerHTML; raw HTML stays text). Links open http(s) only; images are never loaded.
export const MARKDOWN = String.raw`
/** Text \u2192 blocks. Headings move down two levels: a document sits under the page's own headings. */
function mdParse(text) {
  return mdBlocks(String(text).replace(/\r\n?/g, '\n').replace(/<!--[\s\S]*?-->/g, '').split('\n'));
}

const MD_LIST = /^( {0,3})([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const MD_FENCE = /^ {0,3}(\x60{3,}|~{3,})\s*([\w+-]*)/;
const MD_RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const MD_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/;
const MD_TABLE_SEP = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function mdBlocks(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*$/.test(line)) { i++; continue; }
    let m = MD_FENCE.exec(line);
    if (m) {
      const close = m[1];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(close)) body.push(lines[i++]);
      i++;
      out.push(['pre', {}, ['code', m[2] ? { 'data-lang': m[2] } : {}, body.join('\n')]]);
      continue;
    }
    if (MD_RULE.test(line)) { out.push(['hr', {}]); i++; continue; }
    m = MD_HEADING.exec(line);
    if (m) { out.push(['h' + Math.min(6, m[1].length + 2), {}, ...mdInline(m[2] || '')]); i++; continue; }
    if (/^ {0,3}>/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i])) quoted.push(lines[i++].replace(/^ {0,3}> ?/, ''));
      out.push(['blockquote', {}, ...mdBlocks(quoted)]);
      continue;
    }
    if (MD_LIST.test(line)) { i = mdList(lines, i, out); continue; }
    if (line.includes('|') && i + 1 < lines.length && MD_TABLE_SEP.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      i = mdTable(lines, i, out);
      continue;
    }
    const para = [];
    while (i < lines.length && !/^\s*$/.test(lines[i]) && !MD_FENCE.test(lines[i]) && !MD_HEADING.test(lines[i]) &&
      !MD_RULE.test(lines[i]) && !/^ {0,3}>/.test(lines[i]) && !(para.length && MD_LIST.test(lines[i])))
      para.push(lines[i++].trim());
    out.push(['p', {}, ...mdInline(para.join('\n'))]);
  }
  return out;
}

/** A list from line i: its items (with what is indented under each, parsed as blocks); returns the next line. */
function mdList(lines, i, out) {
  const first = MD_LIST.exec(lines[i]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const items = [];
  const deeper = (l) => l !== undefined && l.search(/\S/) > indent;
  while (i < lines.length) {
    const l = lines[i];
    const m = MD_LIST.exec(l);
    if (m && m[1].length === indent && /\d/.test(m[2]) === ordered) items.push([m[3]]);
    // A line indented under the item, or a blank line followed by one, belongs to it.
    else if (items.length && (deeper(l) || (/^\s*$/.test(l) && deeper(lines[i + 1]))))
      items[items.length - 1].push(deeper(l) ? l.slice(Math.min(l.search(/\S/), indent + 2)) : '');
    else break;
    i++;
  }
  const start = ordered ? parseInt(first[2], 10) : 1;
  out.push([ordered ? 'ol' : 'ul', ordered && start !== 1 ? { start: String(start) } : {}, ...items.map(mdItem)]);
  return i;
}

function mdItem(body) {
  const box = /^\[([ xX])\][ \t]+/.exec(body[0]);
  // A tight item: its first line is text, not a paragraph.
  const kids = [...mdInline(box ? body[0].slice(box[0].length) : body[0]), ...mdBlocks(body.slice(1))];
  if (!box) return ['li', {}, ...kids];
  const todo = box[1] === ' ';
  return ['li', { class: 'task' },
    ['span', { role: 'img', 'aria-label': todo ? 'to do' : 'done' }, todo ? '\u2610 ' : '\u2611 '], ...kids];
}

function mdTable(lines, i, out) {
  const cells = (l) => l.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
  const head = cells(lines[i]);
  i += 2;
  const rows = [];
  while (i < lines.length && lines[i].includes('|') && !/^\s*$/.test(lines[i])) rows.push(cells(lines[i++]));
  out.push(['table', {}, ['tr', {}, ...head.map((c) => ['th', {}, ...mdInline(c)])],
    ...rows.map((r) => ['tr', {}, ...head.map((_, k) => ['td', {}, ...mdInline(r[k] || '')])])]);
  return i;
}

/** Only these open: an address on the web, and it is shown where it goes. */
const mdSafeUrl = (u) => /^https?:\/\/[^\s]+$/i.test(u);
function mdLink(label, url) {
  if (!mdSafeUrl(url))
    return ['span', { class: 'link-off', title: 'not opened: only http and https addresses are' },
      ...label, ' (' + url + ')'];
  let host = url;
  try { host = new URL(url).host; } catch (err) { /* shown whole */ }
  const plain = label.length === 1 && label[0] === url;
  return ['a', { href: url, rel: 'noopener noreferrer', target: '_blank', title: url }, ...label,
    ...(plain ? [] : [['span', { class: 'muted' }, ' (' + host + ')']])];
}

// Inline text, by rules tried in order at each character: a sticky pattern, what it makes (a string is text), and a
// condition on where it starts. Anything else is text.
const mdAfterWord = (s, i) => /\w/.test(s[i - 1] || '');
const mdNotMidWord = (s, i) => !(s[i] === '_' && mdAfterWord(s, i));
const MD_INLINE = [
  [/[^\\\x60\[!<h*_~\n]+/y, (m) => m[0]],
  [/\\([\\\x60*_{}\[\]()#+\-.!~|>])/y, (m) => m[1]],
  [/(\x60+)(?!\x60)([\s\S]*?)\1/y, (m) => ['code', {}, m[2].replace(/^ (.*) $/, '$1')]],
  [/\x60+/y, (m) => m[0]],
  [/(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/y, mdLinkOf],
  [/<(https?:\/\/[^>\s]+)>/y, (m) => mdLink([m[1]], m[1])],
  [/https?:\/\/[^\s<>"]*[^\s<>".,;:!?')\]]/y, (m) => mdLink([m[0]], m[0]), (s, i) => !mdAfterWord(s, i)],
  [/(\*\*|__)(?=\S)([\s\S]*?\S)\1/y, (m) => ['strong', {}, ...mdInline(m[2])], mdNotMidWord],
  [/([*_])(?=\S)([\s\S]*?\S)\1(?![\w*])/y, (m) => ['em', {}, ...mdInline(m[2])], mdNotMidWord],
  [/~~(?=\S)([\s\S]*?\S)~~/y, (m) => ['del', {}, ...mdInline(m[1])]],
  [/\n/y, () => ['br', {}]],
];

/** A link or an image written [label](url) or ![alt](url): an image is never loaded, only linked to. */
function mdLinkOf(m) {
  const label = mdInline(m[2]);
  if (!m[1]) return mdLink(label.length ? label : [m[3]], m[3]);
  const alt = 'image: ' + (m[2] || m[3]);
  return mdSafeUrl(m[3]) ? mdLink([alt], m[3]) : ['span', {}, '[' + alt + ']'];
}

function mdInline(s) {
  const out = [];
  let buf = '';
  for (let i = 0; i < s.length; ) {
    let made = s[i], length = 1;
    for (const [re, make, where] of MD_INLINE) {
      re.lastIndex = i;
      const m = re.exec(s);
      if (m && (!where || where(s, i))) { made = make(m); length = m[0].length; break; }
    }
    if (typeof made === 'string') buf += made;
    else { if (buf) out.push(buf); buf = ''; out.push(made); }
    i += length;
  }
  if (buf) out.push(buf);
  return out;
}

/** The tree made into elements: the tags above only, text as text. */
const MD_TAGS = new Set(['p', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'pre', 'code', 'blockquote', 'hr', 'br',
  'table', 'tr', 'th', 'td', 'a', 'strong', 'em', 'del', 'span']);
const MD_ATTRS = new Set(['href', 'rel', 'target', 'title', 'class', 'role', 'aria-label', 'start', 'data-lang']);
function mdNodes(tree) {
  return tree.map((n) => {
    if (typeof n === 'string') return document.createTextNode(n);
    const [tag, attrs, ...kids] = n;
    const e = document.createElement(MD_TAGS.has(tag) ? tag : 'span');
    for (const k of Object.keys(attrs)) if (MD_ATTRS.has(k)) e.setAttribute(k, attrs[k]);
    // A block that may scroll is reached by the keyboard too.
    if (tag === 'pre') e.setAttribute('tabindex', '0');
    e.append(...mdNodes(kids));
    return e;
  });
}

/** A document drawn: markdown in a box (empty: said so). */
function mdDoc(text, attrs) {
  const a = Object.assign({ class: 'doc', tabindex: '0' }, attrs || {});
  if (!text || !String(text).trim()) return el('div', a, el('p', { class: 'muted' }, 'empty'));
  return el('div', a, mdNodes(mdParse(text)));
}

/** A task's log.md: entries of front matter (timestamp, agent, action, result, files) and a markdown body. */
function logEntries(text) {
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  const entries = [];
  let i = 0;
  // Its title, before the first entry, is not shown: the page has its own.
  while (i < lines.length && lines[i] !== '---') i++;
  while (i < lines.length) {
    i++;
    const fields = {}; let list = null;
    while (i < lines.length && lines[i] !== '---') {
      const l = lines[i++];
      const kv = /^([\w-]+):\s*(.*)$/.exec(l);
      const item = /^\s+-\s+(.*)$/.exec(l);
      if (kv) { list = kv[1]; fields[kv[1]] = kv[2] ? unquote(kv[2]) : []; }
      else if (item && list && Array.isArray(fields[list])) fields[list].push(unquote(item[1]));
    }
    i++;
    const body = [];
    while (i < lines.length && lines[i] !== '---') body.push(lines[i++]);
    entries.push({ fields, body: body.join('\n').trim() });
  }
  return entries;
}
function unquote(v) {
  if (/^".*"$/.test(v)) { try { return JSON.parse(v); } catch (err) { return v; } }
  return v.replace(/^'(.*)'$/, '$1');
}
`;
