/**
 * Names that every JavaScript object has, in-process: refused where they would reach an
 * object's prototype, stored and read back exactly where they are plain names, and refused
 * (naming the field) in a hand-written state file. The command line around them is
 * test/e2e/faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { getPhaseField, setPhaseField } from './phase.js';
import { setProjectField } from './project.js';
import { getTask, listTasks } from './task.js';
import { setTaskField } from './task-change.js';

const world = worlds({
  executing: async (w) => {
    await toExecuting(w);
    w.write('.sow/project/implementation/notes.md', '# notes\n');
    await addArtifact(w.ctx(), { kind: 'phase' }, 'inputs', {
      type: 'context',
      path: 'implementation/notes.md',
      extra: {},
    });
  },
});

describe('odd names', () => {
  it('constructor, __proto__ and prototype are refused wherever a name is given', async () => {
    const w = await world('executing');
    const ctx = w.ctx();
    for (const name of ['constructor', '__proto__', 'prototype']) {
      const attempts: [string, () => Promise<unknown>][] = [
        [`task set ${name}`, () => setTaskField(ctx, '010', name, 'x')],
        [`task set metadata.${name}`, () => setTaskField(ctx, '010', `metadata.${name}`, 'x')],
        [`task set metadata.a.${name}.b`, () => setTaskField(ctx, '010', `metadata.a.${name}.b`, 'x')],
        [`phase set ${name}`, () => setPhaseField(ctx, name, 'x')],
        [`project set metadata.${name}`, () => setProjectField(ctx, `metadata.${name}`, 'x')],
        [`input set metadata.${name}`, () => setArtifact(ctx, { kind: 'phase' }, 'inputs', 0, `metadata.${name}`, 'x')],
        // An own property of that name, as the command line's --<name> x makes it.
        [
          `input add --${name}`,
          () =>
            addArtifact(ctx, { kind: 'phase' }, 'inputs', {
              type: 'context',
              path: 'implementation/notes.md',
              extra: Object.fromEntries([[name, 'x']]),
            }),
        ],
      ];
      for (const [what, attempt] of attempts) {
        expect(said(await refused(w, attempt, 'INVALID_VALUE', 1)), what).toContain(`a name other than '${name}'`);
      }
    }
  });

  it(
    'toString, hasOwnProperty, valueOf, ' + 'isPrototypeOf and __defineGetter__ are stored and read back exactly',
    async () => {
      const w = await world('executing');
      const ctx = w.ctx();
      const names = ['toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'toLocaleString'];
      for (const [i, name] of names.entries()) {
        await setTaskField(ctx, '010', `metadata.${name}`, `v${i}`);
        await setTaskField(ctx, '020', name, `w${i}`); // an unknown bare name goes to metadata
        await setPhaseField(ctx, name, `p${i}`);
        await setProjectField(ctx, `metadata.${name}`, `m${i}`);
      }
      for (const [i, name] of names.entries()) {
        expect((await getTask(ctx, '010', `metadata.${name}`)).value).toBe(`v${i}`);
        expect((await getTask(ctx, '020', `metadata.${name}`)).value).toBe(`w${i}`);
        expect((await getPhaseField(ctx, name)).value).toBe(`p${i}`);
        expect((await getPhaseField(ctx, `metadata.${name}`)).value).toBe(`p${i}`);
      }
      expect(Object.keys(w.yaml(taskFile('010')).metadata)).toEqual(names);
      expect(Object.keys(w.yaml(PROJECT).metadata)).toEqual(names);
      // An unset name that an object has anyway reads as unset, not as a function.
      const unset = await getTask(ctx, '010', 'metadata.propertyIsEnumerable').then(
        (r) => r.value,
        () => undefined,
      );
      expect(typeof unset).not.toBe('function');
    },
  );

  it(
    'a state file with a key named constructor or __proto__ is refused (exit 4) naming the field, never ' +
      'silently dropped',
    async () => {
      const w = await world('executing');
      const ctx = w.ctx();
      for (const key of ['constructor', '__proto__', 'prototype']) {
        const original = w.read(taskFile('010'));
        w.write(taskFile('010'), original.replace('metadata: {}', `metadata:\n  ${key}: hand-written\n  kept: yes`));
        const attempts: [string, () => Promise<unknown>][] = [
          ['task get', () => getTask(ctx, '010')],
          ['task set', () => setTaskField(ctx, '010', 'metadata.other', '1')],
          ['task list', () => listTasks(ctx)],
        ];
        for (const [what, attempt] of attempts) {
          expect(said(await refused(w, attempt, 'STATE_FILE_INVALID', 4)), what).toContain(
            `metadata.${key}: '${key}' names a part of every JavaScript object`,
          );
        }
        w.write(taskFile('010'), original);
      }
    },
  );
});
