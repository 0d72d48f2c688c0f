// The views of `sow ui`: fixed lists of read-only sow commands whose `--json` data the page draws; a bad parameter
// comes back as that command's error. `then` reads more after the first answers.
import { call, type Call } from './actions.js';

interface View {
  /** The checkout it reads: the one the address names ('checkout'), or the main one ('main'). */
  where: 'checkout' | 'main';
  calls: (q: URLSearchParams) => Call[];
  /** More calls once `calls` answered: given their answers by label. */
  then?: (parts: ReadonlyMap<string, Part>, q: URLSearchParams) => Call[];
}

/** A call's answer: its data, or its error envelope. */
export type Part = { ok: boolean; data?: unknown };

const dataOf = (part: Part | undefined): unknown => (part?.ok ? part.data : undefined);

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
  ['projects', { where: 'main', calls: () => [call('status', [], { all: true })] }],
  [
    'project',
    {
      where: 'checkout',
      calls: () => [
        call('status', []),
        call('graph lifecycle', [], { format: 'text' }),
        ...['task list', 'task board', 'project history', 'output list', 'agent ps', 'check list'].map((n) =>
          call(n, []),
        ),
      ],
      then: (parts) => {
        const calls: Call[] = [];
        // Each document of the phase in progress that a person approves, to be read beside its button.
        const outputs = dataOf(parts.get('output list'));
        if (Array.isArray(outputs))
          for (const o of outputs as { index: number; type: string }[])
            if (o.type !== 'evidence' && Number.isSafeInteger(o.index))
              calls.push({ ...call('output show', [], { index: String(o.index) }), label: `document ${o.index}` });
        // The outputs of every phase: where the evidence of each check's runs is, to open its log.
        const status = dataOf(parts.get('status')) as { phases?: { name: string; enabled?: boolean }[] } | undefined;
        for (const p of status?.phases ?? [])
          if (p.enabled !== false && typeof p.name === 'string')
            calls.push({ name: 'output list', label: `outputs of ${p.name}`, args: [], opts: { phase: p.name } });
        return calls;
      },
    },
  ],
  ['task', { where: 'checkout', calls: taskCalls }],
  ['document', { where: 'checkout', calls: documentCalls }],
]);
