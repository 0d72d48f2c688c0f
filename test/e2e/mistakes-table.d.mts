/** Types of mistakes-table.mjs (plain JavaScript, so scripts/mistakes.mjs reads it too). */
export type Step = string[];

export interface Fixture {
  /** false: a plain folder, no `git init` (and so no `sow init`). */
  git?: boolean;
  /** false: no `sow init`. */
  init?: boolean;
  steps: Step[];
}

export interface Mistake {
  mistake: string;
  at: string;
  args: string[];
  exit: number;
  code: string;
  message: string;
  hint?: string;
  env?: Record<string, string>;
  setup?: Step[];
}

export const FIXTURES: Record<string, Fixture>;
export const MISTAKES: Mistake[];
