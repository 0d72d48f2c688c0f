import { describe, expect, it } from 'vitest';
import {
  artifactAt,
  artifactPath,
  createArtifact,
  parseIndex,
  RecordedArtifactError,
  repositoryPathOf,
  setArtifactField,
  type ArtifactSlot,
  IndexOutOfRangeError,
  MissingMetadataError,
  UnknownArtifactTypeError,
} from './artifacts.js';
import {
  DidYouMeanError,
  InvalidValueError,
  PathOutsideRepositoryError,
  ReadOnlyFieldError,
  UsageError,
} from './errors.js';
import { standard } from './project-types/standard/index.js';

const NOW = '2026-01-01T00:00:00.000Z';
const REPO = '/work/repo';
const outputs = (phase: string): ArtifactSlot => ({
  label: `the ${phase} phase outputs`,
  types: standard.phases.find((p) => p.name === phase)!.outputs,
  command: 'sow output',
  owner: `--phase ${phase}`,
});
const taskInputs: ArtifactSlot = {
  label: 'task 010 inputs',
  types: standard.taskInputs,
  command: 'sow task input',
  owner: '--id 010',
};
const taskOutputs: ArtifactSlot = {
  label: 'task 010 outputs',
  types: standard.taskOutputs,
  command: 'sow task output',
  owner: '--id 010',
};
const add = (slot: ArtifactSlot, type: string, path: string, extra: Record<string, string> = {}, approved?: string) =>
  createArtifact(slot, { type, path, extra, ...(approved !== undefined ? { approved } : {}) }, NOW, REPO);

describe('createArtifact', () => {
  it('starts approvable types unapproved and puts extra flags in typed metadata', () => {
    expect(
      add(outputs('review'), 'review', 'review/report.md', {
        assessment: 'pass',
        'metadata.score': '7',
        source: 'human',
      }),
    ).toEqual({
      type: 'review',
      path: 'review/report.md',
      created_at: NOW,
      approved: false,
      metadata: { assessment: 'pass', score: 7, source: 'human' },
    });
  });
  it('gives feedback a pending status and references no approval flag', () => {
    expect(add(taskInputs, 'feedback', 'f/001.md')).toEqual({
      type: 'feedback',
      path: 'f/001.md',
      created_at: NOW,
      metadata: { status: 'pending' },
    });
    expect(add(taskInputs, 'reference', 'r.md')).toEqual({ type: 'reference', path: 'r.md', created_at: NOW });
  });
  it('refuses unknown types with the valid ones (and the near miss), and bad metadata values', () => {
    expect(() => add(outputs('planning'), 'design', 'x')).toThrow(UnknownArtifactTypeError);
    expect(() => add(outputs('planning'), 'design', 'x')).toThrow(
      expect.objectContaining({ hint: 'valid types: task_list' }),
    );
    expect(() => add(outputs('planning'), 'task-list', 'x')).toThrow(/did you mean 'task_list'/);
    expect(() => add(outputs('review'), 'review', 'x', { assessment: 'maybe' })).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('pass, fail') }),
    );
    expect(() => add(outputs('review'), 'review', 'x', { assessment: 'pass' }, 'yes')).toThrow(InvalidValueError);
  });
  it('a review needs its assessment when it is added', () => {
    expect(() => add(outputs('review'), 'review', 'review/r.md')).toThrow(MissingMetadataError);
    expect(() => add(outputs('review'), 'review', 'review/r.md')).toThrow(
      expect.objectContaining({
        hint: expect.stringContaining(
          "'sow output add --phase review --type review --path review/r.md --assessment pass'",
        ),
      }),
    );
  });
  it('refuses a flag a typo away from a metadata key the type uses', () => {
    expect(() => add(outputs('review'), 'review', 'r.md', { asessment: 'pass' })).toThrow(DidYouMeanError);
    expect(() => add(outputs('review'), 'review', 'r.md', { asessment: 'pass' })).toThrow(/did you mean 'assessment'/);
    // metadata.<name> stores exactly that name.
    expect(
      add(outputs('review'), 'review', 'r.md', { assessment: 'pass', 'metadata.asessment': 'x' }).metadata,
    ).toEqual({ assessment: 'pass', asessment: 'x' });
  });
});

describe('artifact paths: each type has a root', () => {
  it('documents are relative to .sow/project/, files of the code base to the repository root', () => {
    expect(artifactPath('planning/tasks.md', 'project', REPO)).toBe('planning/tasks.md');
    expect(artifactPath('./planning//tasks.md', 'project', REPO)).toBe('planning/tasks.md');
    expect(artifactPath('../knowledge/adr-001.md', 'project', REPO)).toBe('../knowledge/adr-001.md');
    expect(artifactPath('src/auth/jwt.ts', 'repository', REPO)).toBe('src/auth/jwt.ts');
    expect(add(taskOutputs, 'modified', 'src/auth/jwt.ts').path).toBe('src/auth/jwt.ts');
  });
  it('converts absolute paths inside the repository to the root of the type', () => {
    expect(artifactPath(`${REPO}/src/auth/jwt.ts`, 'repository', REPO)).toBe('src/auth/jwt.ts');
    expect(artifactPath(`${REPO}/.sow/project/planning/tasks.md`, 'project', REPO)).toBe('planning/tasks.md');
    expect(artifactPath(`${REPO}/docs/a.md`, 'project', REPO)).toBe('../../docs/a.md');
  });
  it('refuses paths that leave the repository, the repository itself and empty ones', () => {
    expect(() => artifactPath('../../../etc/passwd', 'project', REPO)).toThrow(PathOutsideRepositoryError);
    expect(() => artifactPath('../x', 'repository', REPO)).toThrow(PathOutsideRepositoryError);
    expect(() => artifactPath('a/../../../../x', 'project', REPO)).toThrow(PathOutsideRepositoryError);
    expect(() => artifactPath('/etc/passwd', 'project', REPO)).toThrow(PathOutsideRepositoryError);
    expect(() => artifactPath('/work/repository-2/x', 'repository', REPO)).toThrow(PathOutsideRepositoryError);
    expect(() => artifactPath('.', 'repository', REPO)).toThrow(InvalidValueError);
    expect(() => artifactPath('', 'project', REPO)).toThrow(UsageError);
  });
  it('says where a stored path is in the repository', () => {
    expect(repositoryPathOf('planning/tasks.md', 'project')).toBe('.sow/project/planning/tasks.md');
    expect(repositoryPathOf('../knowledge/a.md', 'project')).toBe('.sow/knowledge/a.md');
    expect(repositoryPathOf('src/a.ts', 'repository')).toBe('src/a.ts');
  });
});

describe('setArtifactField', () => {
  const slot = outputs('review');
  const base = add(slot, 'review', 'r.md', { assessment: 'pass' });
  const set = (field: string, raw: string, artifact = base) => setArtifactField(artifact, slot, 0, field, raw, REPO);
  it('sets known fields directly and everything else in metadata', () => {
    expect(set('approved', 'true').approved).toBe(true);
    expect(set('assessment', 'fail').metadata).toEqual({ assessment: 'fail' });
    expect(set('metadata.a.b', 'x').metadata).toEqual({ assessment: 'pass', a: { b: 'x' } });
    expect(set('path', `${REPO}/.sow/project/review/other.md`).path).toBe('review/other.md');
  });
  it('refuses read-only fields, invalid values and typos of known names', () => {
    expect(() => set('type', 'context')).toThrow(ReadOnlyFieldError);
    expect(() => set('approved', 'maybe')).toThrow(InvalidValueError);
    expect(() => set('assessment', 'meh')).toThrow(InvalidValueError);
    expect(() => set('path', '../../../x')).toThrow(PathOutsideRepositoryError);
    expect(() => set('aproved', 'true')).toThrow(/did you mean 'approved'/);
  });
  it('refuses to approve a review without an assessment', () => {
    const bare = { type: 'review', path: 'r.md', created_at: NOW, approved: false };
    expect(() => set('approved', 'true', bare)).toThrow(MissingMetadataError);
    expect(() => set('approved', 'true', bare)).toThrow(
      expect.objectContaining({
        hint: expect.stringContaining("'sow output set --phase review --index 0 assessment pass'"),
      }),
    );
  });
});

describe('indexes', () => {
  it('parses indexes and reports the range', () => {
    expect(parseIndex('0')).toBe(0);
    expect(() => parseIndex('-1')).toThrow(UsageError);
    expect(() => parseIndex('x')).toThrow(UsageError);
    expect(() => artifactAt([], 0, outputs('review'))).toThrow(IndexOutOfRangeError);
    expect(() => artifactAt([], 0, outputs('review'))).toThrow(/are empty/);
  });
});

describe('evidence: recorded by sow check run, never by hand', () => {
  const recorded = {
    type: 'evidence',
    path: 'evidence/x-unit.log',
    created_at: NOW,
    metadata: { check: 'unit', exit_code: 1, tree: 'abc' },
  };
  it('cannot be added to a phase or a task by hand', () => {
    expect(() => add(outputs('finalize'), 'evidence', 'evidence/x.log', { check: 'unit', exit_code: '0' })).toThrow(
      RecordedArtifactError,
    );
    expect(() => add(taskOutputs, 'evidence', 'evidence/x.log')).toThrow(
      expect.objectContaining({ code: 'ARTIFACT_RECORDED_BY_SOW', hint: "run 'sow check run' to record a new one" }),
    );
  });
  it('cannot be changed by hand (a failure cannot be turned into a pass)', () => {
    for (const [field, value] of [
      ['exit_code', '0'],
      ['metadata.tree', 'def'],
      ['path', 'evidence/y.log'],
      ['approved', 'true'],
    ] as const) {
      expect(() => setArtifactField(recorded, outputs('finalize'), 0, field, value, REPO), field).toThrow(
        RecordedArtifactError,
      );
    }
  });
  it('is not offered as a type to add', () => {
    expect(() => add(outputs('finalize'), 'design', 'x')).toThrow(
      expect.objectContaining({ hint: 'valid types: documentation' }),
    );
    expect(() => add(outputs('finalize'), 'evidenc', 'x')).toThrow(UnknownArtifactTypeError);
  });
});
