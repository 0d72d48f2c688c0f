/** `sow merge-driver`: the git merge driver for `.sow/` (git runs it; `sow init` registers it). */
import { command } from '../model/def.js';

export const mergeDriver = command({
  name: 'merge-driver',
  description:
    "Merge two branches' versions of a file under .sow/ by what it means (git runs it during merges; sow init " +
    'registers it)',
  args: [
    { name: 'base', description: "%O: the common ancestor's version (a temp file git wrote)" },
    { name: 'ours', description: "%A: this branch's version; the merge is written into it" },
    { name: 'theirs', description: "%B: the other branch's version" },
    { name: 'path', description: "%P: the file's path in the repository, e.g. .sow/project/state.yaml" },
  ],
  help: `git calls it for every file under .sow/ both branches changed, as registered by sow init:
  .sow/.gitattributes: '* merge=sow'; git config merge.sow.driver runs 'sow merge-driver %O %A %B %P'
  when sow is on PATH (else git's own text merge, 'git merge-file').
State files merge field by field (a field only one side changed takes that side; artifacts both
sides added are kept, in time order); logs and the knowledge index keep what either side added.
A field both branches changed to different values stops the merge (exit 1): the file keeps this
branch's value, and 'sow doctor' names the field and both values. Other files under .sow/ get
git's own text merge.`,
  async run(ctx, { args }) {
    const { runMergeDriver } = await import('../app/merge-driver.js');
    const [base, ours, theirs, path] = args as string[];
    const r = await runMergeDriver(ctx.app.cwd, { base: base!, ours: ours!, theirs: theirs!, path: path! }, () =>
      ctx.app.now(),
    );
    return { data: r };
  },
});
