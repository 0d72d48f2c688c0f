// The views of `sow ui`: fixed lists of read-only sow commands whose `--json` data the page draws; a bad parameter
// comes back as that command's error. A view reads more once the first answers say what.
import { call, type Call } from './actions.js';

/** Runs a call (in the view's checkout unless given another) and keeps its answer by label: its data, if it ran. */
type Read = (c: Call, cwd?: string) => Promise<unknown>;

interface View {
  /** The checkout it reads: the one the address names ('checkout'), or the main one ('main'). */
  where: 'checkout' | 'main';
  read: (q: URLSearchParams, read: Read) => Promise<void>;
}

/** A checkout as `status --all` lists it. */
type Checkout = { path: string; rel: string; project?: unknown };

const readAll = async (calls: Call[], read: Read) => {
  for (const c of calls) await read(c);
};

/** The task view's reads: the task, its documents, what it changed, its worker's events, its artifacts. */
const taskCalls = (q: URLSearchParams): Call[] => {
  const id = q.get('id') ?? '';
  return [
    { name: 'task get', args: [], opts: { id } },
    { name: 'task get', label: 'description', args: ['description'], opts: { id } },
    { name: 'task get', label: 'log', args: ['log'], opts: { id } },
    { name: 'task changes', args: [], opts: { id } },
    { name: 'task board', args: [], opts: { id } },
    { name: 'agent events', args: [id], opts: {} },
    { name: 'task input list', args: [], opts: { id } },
    { name: 'task output list', args: [], opts: { id } },
  ];
};

/** A document named by its owner (a phase, or a task) and its index, as `… show` reads it. */
const documentCalls = (q: URLSearchParams): Call[] => {
  const dir = q.get('dir') === 'inputs' ? 'input' : 'output';
  const index = q.get('index') ?? '';
  const task = q.get('task');
  if (task !== null) return [{ name: `task ${dir} show`, label: 'document', args: [], opts: { id: task, index } }];
  const phase = q.get('phase');
  return [{ name: `${dir} show`, label: 'document', args: [], opts: { index, ...(phase ? { phase } : {}) } }];
};

export const VIEWS: ReadonlyMap<string, View> = new Map<string, View>([
  [
    'projects',
    {
      where: 'main',
      async read(_q, read) {
        const rows = (await read(call('status', [], { all: true }))) as Checkout[] | undefined;
        // Each project's type and what its workers used, from its own status.
        for (const row of rows ?? [])
          if (row.project) await read({ ...call('status', []), label: `status of ${row.rel}` }, row.path);
      },
    },
  ],
  [
    'project',
    {
      where: 'checkout',
      async read(_q, read) {
        const status = (await read(call('status', []))) as
          { phases?: { name: string; enabled?: boolean }[] } | undefined;
        await read(call('graph lifecycle', [], { format: 'text' }));
        for (const name of ['task list', 'task board', 'project history']) await read(call(name, []));
        const outputs = await read(call('output list', []));
        for (const name of ['agent ps', 'check list']) await read(call(name, []));
        // Each document of the phase in progress that a person approves, to be read beside its button.
        if (Array.isArray(outputs))
          for (const o of outputs as { index: number; type: string }[])
            if (o.type !== 'evidence' && Number.isSafeInteger(o.index))
              await read({ ...call('output show', [], { index: String(o.index) }), label: `document ${o.index}` });
        // The outputs of every phase: where the evidence of each check's runs is, to open its log.
        for (const p of status?.phases ?? [])
          if (p.enabled !== false && typeof p.name === 'string')
            await read({ ...call('output list', [], { phase: p.name }), label: `outputs of ${p.name}` });
      },
    },
  ],
  ['task', { where: 'checkout', read: (q, read) => readAll(taskCalls(q), read) }],
  ['document', { where: 'checkout', read: (q, read) => readAll(documentCalls(q), read) }],
]);
