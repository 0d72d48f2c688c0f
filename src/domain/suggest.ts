// "Did you mean": the nearest name by optimal string alignment, `-` as `_`, any case; a short name may be one step off,
// a longer two (so `note` is never taken for `name`).
function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number) => d[i * cols + j]!;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

const fold = (s: string) => s.toLowerCase().replaceAll('-', '_');

/** The candidate `name` is a near miss of, or undefined when it is one of them or near none. */
export function nearMiss(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = fold(name);
  let best: { name: string; d: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === name) return undefined;
    const d = distance(wanted, fold(candidate));
    const allowed = Math.min(name.length, candidate.length) >= 7 ? 2 : 1;
    if (d <= allowed && (!best || d < best.d)) best = { name: candidate, d };
  }
  return best?.name;
}
