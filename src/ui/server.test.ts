import { describe, expect, it } from 'vitest';
import { changesPrompt, parseAction } from './actions.js';

describe("the page's actions: a closed list, each one command with values of its shape", () => {
  it.each([
    [{ action: 'advance' }, { name: 'advance', args: [], opts: {} }],
    [
      { action: 'approve_output', index: 0, checkout: '.' },
      { name: 'output set', args: ['approved', 'true'], opts: { index: '0' } },
    ],
    [
      { action: 'approve_tasks', checkout: null },
      { name: 'phase set', args: ['metadata.tasks_approved', 'true'], opts: {} },
    ],
    [
      { action: 'resume', task: '010', prompt: '' },
      { name: 'agent resume', args: ['010', ''], opts: { detach: true } },
    ],
    [
      { action: 'stop', task: '10' },
      { name: 'agent stop', args: ['10'], opts: {} },
    ],
    [
      { action: 'feedback', task: '010', text: '--force' },
      { name: 'task feedback', args: ['--force'], opts: { id: '010' } },
    ],
    [
      { action: 'accept', task: '020' },
      { name: 'task set', args: ['status', 'completed'], opts: { id: '020' } },
    ],
    [
      { action: 'set_status', task: '020', status: 'paused' },
      { name: 'task set', args: ['status', 'paused'], opts: { id: '020' } },
    ],
    [
      { action: 'spawn', task: '020', agent: 'implementer' },
      { name: 'agent spawn', args: ['implementer', '020'], opts: { detach: true } },
    ],
  ])('%j → one command', (body, call) => {
    expect(parseAction(body).calls).toEqual([call]);
  });

  it('request changes is the feedback written, then the worker resumed with it: two commands, in that order', () => {
    expect(parseAction({ action: 'request_changes', task: '010', text: 'Name the file.\n' }).calls).toEqual([
      { name: 'task feedback', args: ['Name the file.\n'], opts: { id: '010' } },
      { name: 'agent resume', args: ['010', changesPrompt('010', 'Name the file.')], opts: { detach: true } },
    ]);
    expect(changesPrompt('010', 'Name the file.\n')).toBe(
      'Changes were requested on task 010 (also recorded as its newest pending feedback):\n\nName the file.',
    );
  });

  it.each([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype', '', 'ADVANCE', 'advance '])(
    '%j is no action',
    (name) => {
      expect(() => parseAction(JSON.parse(`{"action":${JSON.stringify(name)}}`))).toThrow(/^no action/);
    },
  );

  it.each([
    [null, /not a JSON object/],
    [[], /not a JSON object/],
    ['advance', /not a JSON object/],
    [{}, /no action/],
    [{ action: 7 }, /no action '7'/],
    [{ action: 'advance', name: 'project delete' }, /takes no 'name'/],
    [JSON.parse('{"action":"advance","__proto__":{"name":"x"}}'), /takes no '__proto__'/],
    [{ action: 'approve_output', index: '0' }, /needs 'index': an output index/],
    [{ action: 'approve_output', index: -1 }, /needs 'index'/],
    [{ action: 'approve_output', index: 2 ** 53 }, /needs 'index'/],
    [{ action: 'stop', task: '../x' }, /needs 'task': a task id/],
    [{ action: 'stop', task: '0123456789' }, /needs 'task'/],
    [{ action: 'feedback', task: '010' }, /needs 'text'/],
    [{ action: 'feedback', task: '010', text: 'x'.repeat(16 * 1024 + 1) }, /at most 16384 characters/],
    [{ action: 'advance', checkout: ['.'] }, /'checkout'/],
    [{ action: 'set_status', task: '010', status: 'done' }, /needs 'status': a task status/],
    [{ action: 'set_status', task: '010', status: 'constructor' }, /needs 'status'/],
    [{ action: 'spawn', task: '010', agent: '--yolo' }, /needs 'agent': an agent/],
    [{ action: 'spawn', task: '010', agent: 'toString' }, /needs 'agent'/],
    [{ action: 'request_changes', task: '010' }, /needs 'text'/],
    [{ action: 'accept', task: '010', force: true }, /takes no 'force'/],
  ])('%j is refused', (body, why) => {
    expect(() => parseAction(body)).toThrow(why);
  });
});
