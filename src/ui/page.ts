// The one page `sow ui` serves: HTML, CSS and script, no file loaded; views by fragment, drawn from `/api/view` and
// patched on each change. Text goes in only as text nodes.
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
