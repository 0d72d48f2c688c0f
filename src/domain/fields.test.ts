import { describe, expect, it } from 'vitest';
import { coerceField, getAtPath, parseValue, resolveField, setAtPath, splitPath } from './fields.js';
import { InvalidFieldError, InvalidValueError, ReadOnlyFieldError } from './errors.js';

describe('parseValue', () => {
  it('types booleans and integers, keeps the rest as text', () => {
    expect(parseValue('true')).toBe(true);
    expect(parseValue('false')).toBe(false);
    expect(parseValue('42')).toBe(42);
    expect(parseValue('-3')).toBe(-3);
    expect(parseValue('010')).toBe('010');
    expect(parseValue('1.5')).toBe('1.5');
    expect(parseValue('True')).toBe('True');
    expect(parseValue('pass')).toBe('pass');
  });
});

describe('field paths', () => {
  it('splits dotted paths and refuses empty segments', () => {
    expect(splitPath('metadata.a.b')).toEqual(['metadata', 'a', 'b']);
    // A <field> is data for a state file: a path that names nothing is refused like a field (exit 1).
    expect(() => splitPath('a..b')).toThrow(InvalidFieldError);
    expect(() => splitPath('')).toThrow(InvalidFieldError);
  });
  it('resolves known fields, metadata paths and unknown names', () => {
    const known = { status: { kind: 'boolean' as const } };
    expect(resolveField('status', known)).toMatchObject({ where: 'field', name: 'status' });
    expect(resolveField('tasks_approved', known)).toEqual({ where: 'metadata', path: ['tasks_approved'] });
    expect(resolveField('metadata.a.b', known)).toEqual({ where: 'metadata', path: ['a', 'b'] });
    expect(resolveField('metadata.status', known)).toEqual({ where: 'metadata', path: ['status'] });
    expect(() => resolveField('metadata', known)).toThrow(InvalidFieldError);
  });
  it('sets nested values without mutating and refuses to descend into a scalar', () => {
    const original = { a: { b: 1 } };
    const next = setAtPath(original, ['a', 'c', 'd'], true);
    expect(next).toEqual({ a: { b: 1, c: { d: true } } });
    expect(original).toEqual({ a: { b: 1 } });
    expect(() => setAtPath(original, ['a', 'b', 'c'], 1)).toThrow(InvalidValueError);
    expect(getAtPath(next, ['a', 'c', 'd'])).toBe(true);
    expect(getAtPath(next, ['a', 'x'])).toBeUndefined();
  });
});

describe('coerceField', () => {
  it('checks values against the field spec', () => {
    expect(coerceField('approved', 'true', { kind: 'boolean' })).toBe(true);
    expect(() => coerceField('approved', 'yes', { kind: 'boolean' })).toThrow(InvalidValueError);
    expect(coerceField('iteration', '2', { kind: 'integer', min: 1 })).toBe(2);
    expect(() => coerceField('iteration', '0', { kind: 'integer', min: 1 })).toThrow(
      expect.objectContaining({
        message: "invalid value '0' for 'iteration'",
        hint: "'iteration' takes an integer ≥ 1",
      }),
    );
    expect(() => coerceField('iteration', 'two', { kind: 'integer' })).toThrow(InvalidValueError);
    expect(coerceField('status', 'done', { kind: 'enum', values: ['done'] })).toBe('done');
    expect(() => coerceField('status', 'bogus', { kind: 'enum', values: ['done', 'open'] })).toThrow(
      expect.objectContaining({ hint: "'status' takes one of done, open" }),
    );
    expect(() => coerceField('name', ' ', { kind: 'string', nonEmpty: true })).toThrow(InvalidValueError);
    expect(() => coerceField('id', '1', { kind: 'readonly', why: 'fixed' })).toThrow(ReadOnlyFieldError);
  });
});

describe('lookupField', async () => {
  const { lookupField } = await import('./fields.js');
  const { UnknownFieldError } = await import('./errors.js');
  const container = {
    status: 'pending',
    started_at: undefined,
    inputs: [{ path: 'a.md' }],
    metadata: { owner: { name: 'ada' }, tasks_approved: true },
  };
  const known = { status: {}, started_at: {}, inputs: {} };
  it('reads fields, nested paths and metadata', () => {
    expect(lookupField(container, 'status', known, {}, 'x')).toEqual({ field: 'status', value: 'pending' });
    expect(lookupField(container, 'inputs.0.path', known, {}, 'x').value).toBe('a.md');
    expect(lookupField(container, 'tasks_approved', known, {}, 'x')).toEqual({
      field: 'metadata.tasks_approved',
      value: true,
    });
    expect(lookupField(container, 'metadata.owner.name', known, {}, 'x').value).toBe('ada');
  });
  it('reads unset known fields and declared metadata as undefined', () => {
    expect(lookupField(container, 'started_at', known, {}, 'x').value).toBeUndefined();
    expect(lookupField(container, 'project_deleted', known, { project_deleted: {} }, 'x').value).toBeUndefined();
  });
  it('refuses names that are nowhere, so typos are not read as unset, and suggests the near miss', () => {
    expect(() => lookupField(container, 'statu', known, {}, 'task 010')).toThrow(/did you mean 'status'/);
    expect(() => lookupField(container, 'colour', known, {}, 'task 010')).toThrow(UnknownFieldError);
    expect(() => lookupField(container, 'metadata.nope', known, {}, 'task 010')).toThrow(
      /task 010 has no field 'metadata.nope'/,
    );
  });
});
