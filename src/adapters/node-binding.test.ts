import { describe, expect, it } from 'vitest';
import { nodeBinding } from './node-binding.js';

describe('nodeBinding', () => {
  it("gives Node's binding when nothing asks for deprecation warnings", () => {
    expect(typeof nodeBinding<{ lstat: unknown }>('fs', {})?.lstat).toBe('function');
    expect(typeof nodeBinding<{ crc32: unknown }>('zlib', {})?.crc32).toBe('function');
  });

  it(
    'gives nothing with --pending-deprecation (in NODE_OPTIONS or as NODE_PENDING_DEPRECATION=1), where it ' +
      'would warn',
    () => {
      expect(nodeBinding('fs', { NODE_OPTIONS: '--max-old-space-size=100 --pending-deprecation' })).toBeUndefined();
      expect(nodeBinding('fs', { NODE_PENDING_DEPRECATION: '1' })).toBeUndefined();
      // A flag that only begins the same way is another flag.
      expect(nodeBinding('fs', { NODE_OPTIONS: '--pending-deprecation-x' })).toBeDefined();
    },
  );

  it('gives nothing for a binding Node does not hand out', () => {
    expect(nodeBinding('no_such_binding', {})).toBeUndefined();
  });
});
