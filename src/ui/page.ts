/**
 * The one page `sow ui` serves: plain HTML, CSS and script, no build step, no file loaded from
 * anywhere. Three views by the address's fragment — all projects (`#/`), a project (`#/p/<checkout>`),
 * a task (`#/t/<checkout>/<id>`) — each drawn from `/api/view` (sow commands' `--json` data) and
 * patched in place on every change the server tells (`/api/changes`). Text from files reaches the
 * page only through text nodes, never as markup. The script is in parts (src/ui/page/), joined here.
 */
import { BOARD } from './page/board.js';
import { DIFF } from './page/diff.js';
import { DOM } from './page/dom.js';
import { MAIN, MARKUP } from './page/main.js';
import { MARKDOWN } from './page/markdown.js';
import { PROJECT } from './page/project.js';
import { STYLE } from './page/style.js';
import { TASK } from './page/task.js';

export const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>sow</title><link rel="icon" href="data:,">
<style>${STYLE}</style></head>
<body>
${MARKUP}
<script>${DOM}${MARKDOWN}${DIFF}${BOARD}${PROJECT}${TASK}${MAIN}</script></body></html>
`;
