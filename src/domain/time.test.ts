import { describe, expect, it } from 'vitest';
import { isoTime } from './time.js';

describe('isoTime', () => {
  it('says what Date#toISOString says, for any time', () => {
    const times = [
      0,
      1,
      999,
      1_000,
      59_999,
      Date.UTC(2026, 11, 8, 1, 2, 3, 45),
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
    ];
    for (let i = 0; i < 2_000; i++) times.push(Math.floor(Math.random() * Date.UTC(9999, 11, 31)));
    times.push(Date.UTC(-1, 0, 1), Date.UTC(10000, 0, 1), -1, 8.64e15);
    for (const ms of times) expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
  });
});
