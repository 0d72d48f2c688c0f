/** The page's CSS: light and dark (contrast checked by axe-core), a layout that holds at 390 px without scrolling. */
export const STYLE = String.raw`
:root { color-scheme: light dark; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
  --bg: #f6f7f9; --fg: #1d2330; --muted: #545c69; --panel: #fff; --line: #d3d8e0; --col: #e8ecf1;
  --accent: #1a56c4; --accent-fg: #fff; --ok: #0f6b3a; --bad: #b01c2e; --warn: #8a4b00;
  --add: #e3f4e8; --del: #fbe7ea; --add-mark: #0f6b3a; --del-mark: #b01c2e; --code: #eef1f5; --hunk: #e9effa;
  --head: #1d2330; --head-fg: #fff; --head-link: #b9d3ff; --focus: #1a56c4;
  --k: #8b1e8f; --s: #0b6b53; --c: #5b6573; --n: #8a4b00; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171c; --fg: #e4e7ec; --muted: #a9b1bd; --panel: #1c2027; --line: #3a414d; --col: #191d23;
    --accent: #7aa9ff; --accent-fg: #0b1220; --ok: #6fd69b; --bad: #ff8a94; --warn: #f1b863;
    --add: #15301f; --del: #3d171c; --add-mark: #6fd69b; --del-mark: #ff8a94; --code: #252a32; --hunk: #1e2738;
    --head: #0b0d10; --head-fg: #e4e7ec; --head-link: #9cc3ff; --focus: #9cc3ff;
    --k: #e39cf0; --s: #7fd8b8; --c: #9aa4b2; --n: #f1b863; }
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--fg); }
body { overflow-wrap: anywhere; }
a { color: var(--accent); }
header { background: var(--head); color: var(--head-fg); padding: .5rem 1rem; display: flex; flex-wrap: wrap;
  gap: .4rem 1rem; align-items: baseline; }
header a { color: var(--head-link); }
header .muted { color: var(--head-fg); opacity: .85; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
main { padding: .8rem 1rem 3rem; max-width: 1240px; }
h1 { font-size: 1.3rem; margin: .2rem 0 .6rem; } h2 { font-size: 1.08rem; margin: 1.4rem 0 .5rem; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
h1:focus { outline: none; }
.muted { color: var(--muted); }
.banner { border: 1px solid var(--bad); color: var(--bad); background: var(--panel); padding: .5rem .7rem;
  border-radius: 6px; margin: .4rem 0; white-space: pre-wrap; }
#error:empty, .banner:empty, .note:empty { display: none; }
#notice { border-left-color: var(--ok); }
.note { border-left: 3px solid var(--line); padding: .1rem .6rem; margin: .4rem 0; }
table { border-collapse: collapse; background: var(--panel); width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
pre, code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .86rem; }
pre { background: var(--panel); padding: .5rem; border: 1px solid var(--line); border-radius: 4px;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 28rem; overflow-y: auto; margin: .3rem 0; }
:not(pre) > code { background: var(--code); padding: 0 .25rem; border-radius: 3px; }
button, input, textarea, select { font: inherit; color: inherit; }
button { padding: .3rem .75rem; margin: .15rem .3rem .15rem 0; cursor: pointer; border: 1px solid var(--line);
  border-radius: 5px; background: var(--panel); min-height: 2.1rem; }
button.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
button.danger { color: var(--bad); border-color: var(--bad); }
button[aria-busy="true"] { opacity: .7; cursor: progress; }
input[type="search"], input[type="text"], textarea, select {
  background: var(--panel); border: 1px solid var(--line); border-radius: 5px; padding: .3rem .45rem; max-width: 100%; }
textarea { width: 100%; min-height: 4.5rem; }
.panel label, .comment label { display: block; margin: .5rem 0 .2rem; }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.act { display: inline-flex; flex-wrap: wrap; align-items: center; gap: .2rem .5rem; }
.result { font-size: .9rem; white-space: pre-wrap; } .result.ok { color: var(--ok); }
.result.failed { color: var(--bad); }
.fresh, .met, .pass { color: var(--ok); } .stale { color: var(--warn); } .blocked, .fail { color: var(--bad); }
.badge { display: inline-block; border: 1px solid var(--line); border-radius: 999px; padding: 0 .45rem;
  font-size: .8rem; margin: .1rem .2rem .1rem 0; background: var(--panel); color: var(--fg); }
.badge.ok { border-color: var(--ok); color: var(--ok); } .badge.bad { border-color: var(--bad); color: var(--bad); }
.badge.warn { border-color: var(--warn); color: var(--warn); }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem;
  margin: .5rem 0; }
.doc { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .2rem .9rem;
  margin: .4rem 0; max-height: 36rem; overflow-y: auto; }
.doc table { width: auto; max-width: 100%; display: block; overflow-x: auto; }
.doc blockquote { border-left: 3px solid var(--line); margin: .4rem 0; padding: 0 .7rem; color: var(--muted); }
.output { margin: .6rem 0; }
.output > .head { display: flex; flex-wrap: wrap; align-items: center; gap: .3rem .7rem; }
details > summary { cursor: pointer; padding: .15rem 0; }
.log-entry { border-top: 1px solid var(--line); padding: .3rem 0; }
.log-entry .meta { font-size: .85rem; }
/* The board: a column per status; empty ones folded; stacked on a narrow screen. */
.toolbar { display: flex; flex-wrap: wrap; gap: .4rem .8rem; align-items: center; margin: .3rem 0 .6rem; }
.toolbar label { display: inline-flex; gap: .3rem; align-items: center; }
.board { display: grid; grid-template-columns: repeat(auto-fit, minmax(210px, 1fr)); gap: .5rem; align-items: start; }
.col { background: var(--col); border-radius: 6px; padding: .4rem; min-height: 3rem; }
.folded-cols .col.folded { display: inline-block; min-height: 0; padding: .05rem .5rem; margin: .1rem .2rem; }
.col.drop { outline: 2px dashed var(--accent); }
.col h3 { font-size: .8rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted);
  margin: .1rem .2rem .4rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 5px; padding: .35rem .5rem;
  margin-bottom: .35rem; }
.card[draggable="true"] { cursor: grab; }
.card .title { color: inherit; text-decoration: none; font-weight: 600; }
.card .line { font-size: .85rem; }
.card .refused { color: var(--bad); font-size: .85rem; white-space: pre-wrap; }
.graph { position: relative; margin: .4rem 0 1rem; }
.graph svg { position: absolute; left: 0; top: 0; overflow: visible; pointer-events: none; }
.graph path { fill: none; stroke: var(--muted); stroke-width: 1.5; }
.graph path.met { stroke: var(--ok); stroke-width: 2; }
.graph path.blocked { stroke: var(--bad); stroke-width: 2; stroke-dasharray: 5 3; }
.node { margin-bottom: .7rem; }
.node .name { display: inline-block; background: var(--panel); border: 1px solid var(--line); border-radius: 5px;
  padding: .15rem .6rem; font-weight: 600; }
.node.visited .name { background: var(--col); }
.node.current .name { background: var(--accent); border-color: var(--accent); color: var(--accent-fg); }
.node.current .name .muted { color: var(--accent-fg); }
.node ul { list-style: none; margin: .2rem 0 0 .8rem; padding: 0; font-size: .92rem; }
.node li { margin: .1rem 0; }
.here { font-weight: 400; font-size: .8rem; margin-left: .4rem; }
/* Diffs: a table per file, lines wrapped (never a horizontal scroll), a comment button per line. */
.file { border: 1px solid var(--line); border-radius: 6px; margin: .6rem 0; background: var(--panel); }
.file > summary { padding: .35rem .6rem; background: var(--col); border-radius: 6px 6px 0 0; }
table.diff { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .82rem; table-layout: fixed; }
table.diff td { border: 0; padding: 0 .4rem; white-space: pre-wrap; word-break: break-all; }
table.diff td.n { width: 3.4rem; text-align: right; color: var(--muted); padding: 0; }
table.diff td.n button { border: 0; background: none; margin: 0; padding: 0 .3rem; min-height: 0; width: 100%;
  text-align: right; color: inherit; font: inherit; }
table.diff tr.add td.t { background: var(--add); } table.diff tr.del td.t { background: var(--del); }
table.diff tr.add td.t::before { content: "+"; color: var(--add-mark); }
table.diff tr.del td.t::before { content: "-"; color: var(--del-mark); }
table.diff tr.ctx td.t::before { content: " "; }
table.diff tr.hunk td { background: var(--hunk); color: var(--muted); }
table.diff tr.comment td { background: var(--bg); font-family: system-ui, sans-serif; white-space: normal;
  padding: .3rem .5rem; }
.tk-k { color: var(--k); } .tk-s { color: var(--s); } .tk-c { color: var(--c); font-style: italic; }
.tk-n { color: var(--n); }
.events { max-height: 22rem; overflow-y: auto; background: var(--panel); border: 1px solid var(--line);
  border-radius: 4px; margin: .3rem 0; padding: .2rem .5rem; list-style: none; }
.events .event { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .84rem; white-space: pre-wrap; }
@media (max-width: 640px) {
  main { padding: .6rem .6rem 3rem; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr:first-child:has(th) { display: none; }
  table.stack tr { border-bottom: 1px solid var(--line); padding: .3rem 0; }
  table.stack td { border: 0; padding: .05rem .5rem; }
  table.stack td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
  table.diff td.n { width: 2.6rem; }
  .board { grid-template-columns: 1fr; }
}
`;
