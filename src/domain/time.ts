/** A time as an ISO-8601 UTC timestamp, the same text as `Date#toISOString`, which V8 answers only after loading the
 * local time zone (about 0.2 ms of a command's start, for a time that is UTC). */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) return d.toISOString();
  const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
  const milli = d.getUTCMilliseconds();
  return (
    `${String(year).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}` +
    `T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}` +
    `.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`
  );
}
