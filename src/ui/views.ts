// The views of `sow ui`: fixed lists of read-only sow commands whose `--json` data the page draws; a bad parameter
// comes back as that command's error. A view reads more once the first answers say what.
import { call, type Call } from './actions.js';

/** Runs a call (in the view's checkout unless given another) and keeps its answer by label: its data, if it ran. */
type Read = (c: Call, cwd?: string) => Promise<unknown>;

/** A view: the checkout it reads (the one the address names, or the main one) and its reads. */
type View = { where: 'checkout' | 'main'; read: (q: URLSearchParams, read: Read) => Promise<void> };

export const VIEWS = new Map<string, View>([
  [
    'projects',
    {
      where: 'main',
      async read(_q, read) {
        const rows = (await read(call('status', [], { all: true }))) as
          { path: string; rel: string; project?: unknown }[] | undefined;
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
  [
    // The task, its documents, what it changed, its worker's events, its artifacts.
    'task',
    {
      where: 'checkout',
      async read(q, read) {
        const id = q.get('id') ?? '';
        await read(call('task get', [], { id }));
        for (const field of ['description', 'log']) await read({ ...call('task get', [field], { id }), label: field });
        for (const name of ['task changes', 'task board']) await read(call(name, [], { id }));
        await read(call('agent events', [id]));
        for (const name of ['task input list', 'task output list']) await read(call(name, [], { id }));
      },
    },
  ],
  [
    // A document named by its owner (a phase, or a task) and its index, as `… show` reads it.
    'document',
    {
      where: 'checkout',
      async read(q, read) {
        const dir = q.get('dir') === 'inputs' ? 'input' : 'output';
        const [task, phase, index] = [q.get('task'), q.get('phase'), q.get('index') ?? ''];
        const opts = task !== null ? { id: task, index } : { index, ...(phase ? { phase } : {}) };
        await read({ ...call(task !== null ? `task ${dir} show` : `${dir} show`, [], opts), label: 'document' });
      },
    },
  ],
]);
