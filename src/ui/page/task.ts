// A task's page, where it is reviewed: diff with line comments, description, log, workers' runs; on a task that needs
// review, Accept (completed through its checks) and Request changes (feedback, worker resumed).
export const TASK = String.raw`
const MARKS = { session: '\u25e6', message: '\u203a', tool_call: '\u25cf', finished: '\u2713', error: '\u2717',
  usage: '$', text: ' ', exit: '\u25a0', agent_plan: '\u2610' };
const SOURCES = {
  'worker-checkout': "in its own checkout: its branch's commits and what is not committed yet",
  'worker-branch': "on its branch (its checkout's folder is gone)",
  recorded: 'in the files it records as modified (project checkout)',
  'project-checkout':
    'in the project checkout, where it records no file of its own: changes of other tasks there are in it too',
};

function drawTask(d, r) {
  const t = part(d, 'task get');
  const co = r.checkout;
  const back = el('p', {}, el('a', { href: '#/p/' + encodeURIComponent(co) }, '\u2190 the project'));
  if (!t)
    return [back, el('h1', { tabindex: '-1' }, 'Task ' + r.id),
      el('p', { class: 'banner', role: 'alert' }, failed(d, 'task get') || 'No such task.')];
  const board = part(d, 'task board') || {};
  const card = (board.cards || [])[0];
  const events = (part(d, 'agent events') || { events: [] }).events || [];
  const inputs = part(d, 'task input list') || [];
  const outputs = part(d, 'task output list') || [];
  const ch = part(d, 'task changes');
  const review = uiState('review:' + co + ':' + t.id, () => ({ comments: new Map(), editing: null }));
  const live = card && card.worker && card.worker.state === 'live' && card.worker.kind === 'worker';
  const nobody = card && (t.status === 'in_progress') && !(card.worker && card.worker.state === 'live');
  return [
    back,
    el('h1', { tabindex: '-1' }, t.id + ' ' + t.name),
    el('p', {}, 'Status: ', el('strong', { id: 'task-status' }, t.status), ' \u00b7 iteration ' + t.iteration,
      card && card.worker && ' \u00b7 ' + (card.worker.kind === 'worker' ? 'worker ' : 'claimed by ') +
        card.worker.by + (card.worker.state === 'live' ? '' : ' (gone)'),
      ' ',
      card && card.feedback_pending > 0 &&
        el('span', { class: 'badge warn', id: 'pending-feedback' }, card.feedback_pending + ' pending feedback'),
      card && card.usage && el('span', { class: 'badge', id: 'task-cost' }, usageText(card.usage)),
      nobody && el('span', { class: 'badge bad', id: 'nobody' }, 'nobody is working on it')),
    t.status === 'needs_review' ? drawReview(t, co, review) : null,
    el('div', { class: 'toolbar' },
      live && actionButton('stop', 'Stop its worker', { action: 'stop', task: t.id, checkout: co },
        { id: 'stop', class: 'danger', done: () => 'Its worker was stopped; the task is paused.' })),
    t.session && !live && t.status !== 'needs_review' && el('div', { class: 'panel' },
      el('label', { for: 'prompt' }, 'Tell its worker, and resume it'),
      el('input', { id: 'prompt', type: 'text', placeholder: 'What to tell the worker' }),
      actionButton('resume', 'Resume',
        () => ({ action: 'resume', task: t.id, prompt: document.getElementById('prompt').value, checkout: co }),
        { id: 'resume', done: () => 'Its worker was resumed.',
          after: (x) => { if (x.ok) document.getElementById('prompt').value = ''; } })),
    el('h2', {}, 'What it changed'),
    ch
      ? el('p', { class: 'muted', id: 'changes-source' },
        ch.files.length + ' file' + (ch.files.length === 1 ? '' : 's') + ' changed ' + (SOURCES[ch.source] || '') +
          (ch.base
            ? '; against ' + (ch.base.branch ? ch.base.branch + ' at ' : '') + ch.base.commit.slice(0, 12)
            : '; against its last commit') +
          (ch.truncated ? '; some patches were cut (too large)' : '') + '.')
      : el('p', { class: 'banner', role: 'alert' }, failed(d, 'task changes') || ''),
    ch ? drawChanges(ch, review) : null,
    t.status !== 'needs_review' ? drawFeedback(t, co, review) : null,
    el('h2', {}, 'Description'), mdDoc((part(d, 'description') || {}).value || '', { id: 'description' }),
    el('h2', {}, 'Runs and events'), drawRuns(board.runs || []),
    el('div', { id: 'events', class: 'events', role: 'log', tabindex: '0',
      'aria-label': "Its worker's events (the newest run)" },
      events.length
        ? events.map((e, i) => el('div', { key: 'ev:' + i, class: 'event', 'data-kind': e.kind },
          (e.at || '').slice(11, 19) + ' ' + (MARKS[e.kind] || ' ') + ' ' + e.text))
        : el('div', { class: 'muted' }, 'none yet')),
    el('h2', {}, 'Log'), drawLog((part(d, 'log') || {}).value || ''),
    el('h2', {}, 'Inputs'), artifactList('inputs', inputs, t, co),
    el('h2', {}, 'Outputs'), artifactList('outputs', outputs, t, co),
  ];
}

/** Accept, or request changes: the general words, the line comments, and the result of each. */
function drawReview(t, co, review) {
  return el('section', { id: 'review', class: 'panel', 'aria-labelledby': 'review-title' },
    el('h2', { id: 'review-title' }, 'Review'),
    el('p', { class: 'muted' },
      'Read what it changed below; comment on a line with its number. Then accept it, or request changes: ' +
        'the feedback is written and its worker resumed with it.'),
    actionButton('accept', 'Accept', { action: 'accept', task: t.id, checkout: co },
      { id: 'accept', class: 'primary', done: (x) => acceptedText(t.id, x.data) }),
    el('label', { for: 'changes-text' }, 'What to change'),
    el('textarea', { id: 'changes-text', rows: '4', placeholder: 'What to change, and why' }),
    sendFeedback('request-changes', 'Request changes', 'request_changes', 'changes-text', t, co, review,
      (x) => 'Feedback ' + ((x.steps && x.steps[0].data.artifact.path) || '') +
        ' written, and its worker resumed with it.'));
}

/** Feedback without resuming (any status): the same words and line comments. */
function drawFeedback(t, co, review) {
  return el('section', { class: 'panel', 'aria-labelledby': 'feedback-title' },
    el('h2', { id: 'feedback-title' }, 'Feedback'),
    el('label', { for: 'feedback-text' }, 'What to change, and why (its worker reads it when it resumes)'),
    el('textarea', { id: 'feedback-text', rows: '3' }),
    sendFeedback('feedback', 'Add feedback', 'feedback', 'feedback-text', t, co, review,
      (x) => 'Feedback ' + x.data.artifact.path + ' added (pending).'));
}

/** The line comments, and the button that sends them with the words in the field as one feedback text. */
function sendFeedback(key, label, action, field, t, co, review, done) {
  return [commentList(review), actionButton(key, label, () => {
    const text = reviewText(document.getElementById(field).value, review.comments);
    if (text.trim()) return { action, task: t.id, text, checkout: co };
    const message = 'Say what to change first: write it, or comment on a line of the diff.';
    S.btn.set(key, { state: 'failed', message });
    render();
    return null;
  }, { id: key, done, after: (x) => {
    // Written is written (also when the resume after it failed): the words are not kept to be sent twice.
    if (!x.ok && !(x.steps && x.steps.length)) return;
    review.comments.clear();
    // The box may be gone by now (the task left review when its worker resumed).
    const box = document.getElementById(field);
    if (box) box.value = '';
    render();
  } })];
}

function commentList(review) {
  if (!review.comments.size) return null;
  return el('ul', { id: 'review-comments' }, [...review.comments.entries()].map(([k, c]) => el('li', { key: 'rc:' + k },
    el('span', { class: 'mono' }, lineName(c)),
    ': ' + c.text, ' ',
    el('button', { type: 'button', 'aria-label': 'Remove the comment on ' + c.file + ' line ' + c.line,
      onclick: () => { review.comments.delete(k); render(); } }, 'Remove'))));
}

function acceptedText(id, data) {
  const checks = (data && data.checks) || [];
  if (data && data.unchanged) return 'Task ' + id + ' was completed already.';
  return 'Task ' + id + ' is completed' + (checks.length
    ? '; its checks: ' + checks.map((c) => c.name + ' ' + (c.passed === false ? 'failed' : 'passed')).join(', ')
    : '') + '.';
}

/** Each run of its workers (every spawn and resume) with what it used. */
function drawRuns(runs) {
  if (!runs.length) return el('p', { class: 'muted', id: 'runs-none' }, 'No run of a worker has ended yet.');
  return stackTable('runs', ['Ended', 'Worker', 'Run', 'Tokens in / out', 'Cost'], runs.map((u, i) => [
    { key: 'run:' + i }, u.at, u.agent_id + ' (' + u.executor + ')', u.run,
    u.input_tokens === undefined && u.output_tokens === undefined
      ? 'not reported'
      : (u.input_tokens || 0).toLocaleString('en') + ' / ' + (u.output_tokens || 0).toLocaleString('en'),
    u.cost_usd === undefined ? 'not reported' : '$' + u.cost_usd.toFixed(4)]));
}

/** The task's log: each entry's fields in a line, its words as markdown. */
function drawLog(text) {
  const entries = logEntries(text);
  if (!entries.length) return el('p', { class: 'muted', id: 'log' }, 'Nothing logged yet.');
  return el('div', { id: 'log', class: 'doc', tabindex: '0', 'aria-label': 'Its log' },
    entries.map((e, i) => el('div', { class: 'log-entry', key: 'log:' + i },
      el('div', { class: 'meta muted' },
        [e.fields.timestamp, e.fields.agent, e.fields.action, e.fields.result]
          .filter((x) => typeof x === 'string' && x).join(' \u00b7 '),
        Array.isArray(e.fields.files) && e.fields.files.length ? ' \u00b7 files: ' + e.fields.files.join(', ') : ''),
      mdNodes(mdParse(e.body)))));
}

function artifactList(dir, list, t, co) {
  if (!list.length) return el('p', { class: 'muted' }, 'none');
  return el('ul', { id: dir }, list.map((a) => el('li', { key: dir + ':' + a.index + ':' + a.path },
    a.type + ': ' + a.path + (a.metadata && a.metadata.status ? ' (' + a.metadata.status + ')' : ''),
    a.type === 'modified'
      ? null
      : lazyDoc(dir + ':' + co + ':' + t.id + ':' + a.index + ':' + a.path,
        { checkout: co, task: t.id, dir, index: String(a.index) }, 'Read it', a.type === 'evidence'))));
}
`;
