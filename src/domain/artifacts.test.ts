import { describe, expect, it } from 'vitest';
import { artifactAt, checkArtifactPath, createArtifact, formatArtifact, parseIndex, setArtifactField, type ArtifactSlot } from './artifacts.js';
import { IndexOutOfRangeError, InvalidValueError, PathOutsideRepositoryError, ReadOnlyFieldError, UnknownArtifactTypeError, UsageError } from './errors.js';
import { standard } from './project-types/standard/index.js';

const NOW = '2026-01-01T00:00:00.000Z';
const outputs = (phase: string): ArtifactSlot => ({ label: `the ${phase} phase outputs`, types: standard.phases.find((p) => p.name === phase)!.outputs, listCommand: 'sow output list' });
const taskInputs: ArtifactSlot = { label: 'task 010 inputs', types: standard.taskInputs, listCommand: 'sow task input list --id 010' };

describe('createArtifact', () => {
  it('starts approvable types unapproved and puts extra flags in typed metadata', () => {
    const review = createArtifact(outputs('review'), { type: 'review', path: 'review/report.md', extra: { assessment: 'pass', 'metadata.score': '7', source: 'human' } }, NOW);
    expect(review).toEqual({ type: 'review', path: 'review/report.md', created_at: NOW, approved: false, metadata: { assessment: 'pass', score: 7, source: 'human' } });
  });
  it('gives feedback a pending status and references no approval flag', () => {
    expect(createArtifact(taskInputs, { type: 'feedback', path: 'f/001.md', extra: {} }, NOW)).toEqual({ type: 'feedback', path: 'f/001.md', created_at: NOW, metadata: { status: 'pending' } });
    expect(createArtifact(taskInputs, { type: 'reference', path: 'r.md', extra: {} }, NOW)).toEqual({ type: 'reference', path: 'r.md', created_at: NOW });
  });
  it('refuses unknown types with the valid ones, and bad metadata values', () => {
    expect(() => createArtifact(outputs('planning'), { type: 'design', path: 'x', extra: {} }, NOW)).toThrow(UnknownArtifactTypeError);
    expect(() => createArtifact(outputs('planning'), { type: 'design', path: 'x', extra: {} }, NOW)).toThrow(expect.objectContaining({ hint: 'valid types: task_list' }));
    expect(() => createArtifact(outputs('review'), { type: 'review', path: 'x', extra: { assessment: 'maybe' } }, NOW)).toThrow(/pass, fail/);
    expect(() => createArtifact(outputs('review'), { type: 'review', path: 'x', approved: 'yes', extra: {} }, NOW)).toThrow(InvalidValueError);
  });
});

describe('artifact paths', () => {
  it('accepts paths inside the repository, also outside .sow/project/', () => {
    expect(checkArtifactPath('planning/tasks.md')).toBe('planning/tasks.md');
    expect(checkArtifactPath('../knowledge/adr-001.md')).toBe('../knowledge/adr-001.md');
    expect(checkArtifactPath('../../src/auth/jwt.ts')).toBe('../../src/auth/jwt.ts');
  });
  it('refuses paths that leave the repository, absolute paths and empty ones', () => {
    expect(() => checkArtifactPath('../../../etc/passwd')).toThrow(PathOutsideRepositoryError);
    expect(() => checkArtifactPath('a/../../../../x')).toThrow(PathOutsideRepositoryError);
    expect(() => checkArtifactPath('/etc/passwd')).toThrow(InvalidValueError);
    expect(() => checkArtifactPath('')).toThrow(UsageError);
  });
});

describe('setArtifactField', () => {
  const base = createArtifact(outputs('review'), { type: 'review', path: 'r.md', extra: { assessment: 'pass' } }, NOW);
  it('sets known fields directly and everything else in metadata', () => {
    expect(setArtifactField(base, outputs('review'), 'approved', 'true').approved).toBe(true);
    expect(setArtifactField(base, outputs('review'), 'assessment', 'fail').metadata).toEqual({ assessment: 'fail' });
    expect(setArtifactField(base, outputs('review'), 'metadata.a.b', 'x').metadata).toEqual({ assessment: 'pass', a: { b: 'x' } });
  });
  it('refuses read-only fields and invalid values', () => {
    expect(() => setArtifactField(base, outputs('review'), 'type', 'context')).toThrow(ReadOnlyFieldError);
    expect(() => setArtifactField(base, outputs('review'), 'approved', 'maybe')).toThrow(InvalidValueError);
    expect(() => setArtifactField(base, outputs('review'), 'assessment', 'meh')).toThrow(InvalidValueError);
    expect(() => setArtifactField(base, outputs('review'), 'path', '../../../x')).toThrow(PathOutsideRepositoryError);
  });
});

describe('indexes and formatting', () => {
  it('parses indexes and reports the range', () => {
    expect(parseIndex('0')).toBe(0);
    expect(() => parseIndex('-1')).toThrow(UsageError);
    expect(() => parseIndex('x')).toThrow(UsageError);
    expect(() => artifactAt([], 0, outputs('review'))).toThrow(IndexOutOfRangeError);
    expect(() => artifactAt([], 0, outputs('review'))).toThrow(/are empty/);
  });
  it('formats list lines as spec 000 shows them', () => {
    expect(formatArtifact(0, { type: 'task_list', path: 'planning/tasks.md', approved: false, created_at: NOW })).toBe('[0] task_list: planning/tasks.md (not approved)');
    expect(formatArtifact(0, { type: 'review', path: 'review/report.md', approved: false, created_at: NOW, metadata: { assessment: 'pass' } })).toBe('[0] review: review/report.md (assessment: pass, not approved)');
    expect(formatArtifact(2, { type: 'feedback', path: 'phases/implementation/tasks/010/feedback/001.md', created_at: NOW, metadata: { status: 'pending' } })).toBe('[2] feedback: phases/implementation/tasks/010/feedback/001.md (status: pending)');
    expect(formatArtifact(0, { type: 'reference', path: 'sinks/style-guide.md', created_at: NOW })).toBe('[0] reference: sinks/style-guide.md');
  });
});
