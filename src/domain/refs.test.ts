import { describe, expect, it } from 'vitest';
import { defaultLink, linkProblem, sourceKind, unsharedReason, urlProblem } from './refs.js';

describe('which sources the committed index may name', () => {
  it.each([
    'https://github.com/acme/style.git',
    'ssh://git@github.com/acme/style.git',
    'ssh://git@example.com:2222/srv/style.git',
    'git@github.com:acme/style.git',
  ])('%s: shared', (source) => {
    expect(unsharedReason(source)).toBeUndefined();
    expect(sourceKind(source)).toBe('git');
  });

  it.each([
    ['/home/me/.ssh', /a local folder/],
    ['../../other', /a local folder/],
    ['other', /a local folder/],
    ['file:///home/me/.ssh', /file:\/\/ URL is a folder on this machine/],
    ['FILE:///etc', /file:\/\/ URL/],
    ['http://example.com/style.git', /unencrypted/],
    ['git://example.com/style.git', /unencrypted/],
    ['ext::sh -c touch% /tmp/x', /remote helper/],
    ['ftp://example.com/x.git', /only https:\/\/ and ssh:\/\//],
    ['ssh://-oProxyCommand=touch%20x/y', /begins with '-'/],
    ['ssh://-oProxyCommand=x@host/y', /begins with '-'/],
    ['-oProxyCommand=x@host:y', /begins with '-'/],
    ['git@-host:y', /begins with '-'/],
    [
      'ssh://%2doProxyCommand=touch${IFS}x/r',
      /begins with '-' \('-oProxyCommand=touch\$\{IFS\}x' once its %-escapes are decoded/,
    ],
    ['ssh://git@%2Dhost/r', /begins with '-'/],
    ['https://github.com/acme/a%0a.git', /control character once its %-escapes are decoded/],
    ['ssh://host/%zz', /does not decode/],
    ['ssh://host:-oProxyCommand=x/r', /its port is not a number/],
    ['ssh://', /names no host/],
  ])('%s: not shared', (source, why) => {
    expect(unsharedReason(source)).toMatch(why);
  });
});

describe('urlProblem: a git URL judged as git and ssh see it (decoded whole first)', () => {
  it.each([
    'https://github.com/acme/style.git',
    'https://github.com/acme/my%20style.git',
    'ssh://git@github.com/acme/style.git',
    'ssh://git@example.com:2222/srv/style.git',
    'ssh://git@[::1]:22/srv/x.git',
    'ssh://a-b@host-1/-x',
    'git://example.com/x.git',
    'file:///tmp/x.git',
    'git@github.com:acme/style.git',
    'git@host:%2dpath',
    '/home/me/notes',
  ])('%s may be given to git', (source) => {
    expect(urlProblem(source)).toBeUndefined();
  });

  it.each([
    ['ssh://-oProxyCommand=touch%20x/y', /its host or user begins with '-'.*, which ssh would read as an option/],
    [
      'ssh://%2doProxyCommand=touch${IFS}x/r',
      /begins with '-' \('-oProxyCommand=touch\$\{IFS\}x' once its %-escapes are decoded, as git decodes them\)/,
    ],
    ['ssh://%2DoProxyCommand=x/r', /begins with '-'/],
    ['ssh://git@%2doProxyCommand=x/r', /begins with '-'/],
    ['ssh://%2doProxyCommand=x@host/r', /begins with '-'/],
    ['ssh://a%40-oProxyCommand=x/r', /begins with '-'/],
    ['git://%2dhost/r', /begins with '-'/],
    ['https://-host/r', /begins with '-'/],
    ['ssh://host:%2d1/r', /its port is not a number/],
    ['ssh://host:22x/r', /its port is not a number/],
    ['ssh://host/r%0aecho', /control character once its %-escapes are decoded/],
    ['ssh://host/r%00', /control character/],
    ['ssh://host/r%7f', /control character/],
    ['ssh://host/r%c2%9b', /control character/],
    ['ssh://host/r\tx', /control character$/],
    ['ssh://host/%', /does not decode/],
    ['ssh://host/%e2%82', /does not decode/],
    ['-oProxyCommand=x@host:y', /begins with '-'/],
    ['git@host:y\nz', /control character/],
  ])('%s is refused', (source, why) => {
    expect(urlProblem(source)).toMatch(why);
  });
});

describe('link names', () => {
  it.each(['style', 'style-v2', 'a.b_c', '0'])('%s is a plain name', (link) => {
    expect(linkProblem(link)).toBeUndefined();
  });

  it.each([
    '',
    '..',
    'a..b',
    '.hidden',
    '-x',
    'a/b',
    '../x',
    'Style',
    'index.json',
    'index.local.json',
    'x'.repeat(65),
    'a b',
  ])('%j is refused', (link) => {
    expect(linkProblem(link)).toBeDefined();
  });
});

describe("defaultLink: the source's name", () => {
  it.each([
    ['https://github.com/acme/style-guide', 'style-guide'],
    ['https://github.com/acme/style-guide.git', 'style-guide'],
    ['https://github.com/acme/Style_Guide.git/', 'style_guide'],
    ['git@github.com:acme/examples.git', 'examples'],
    ['git@example.com:examples.git', 'examples'],
    ['ssh://git@example.com:2222/srv/api.git', 'api'],
    ['file:///tmp/refs/origin.git', 'origin'],
    ['/home/me/notes', 'notes'],
    ['/home/me/notes/', 'notes'],
    ['~/My Notes', 'my-notes'],
    ['../docs.v2', 'docs.v2'],
    ['https://example.com/x.git?ref=1', 'x'],
  ])('%s → %s', (source, link) => {
    expect(defaultLink(source)).toBe(link);
    expect(linkProblem(link)).toBeUndefined();
  });

  it.each(['/', '.', '..', '___', '/srv/index.json'])('%s: none (the caller asks for --link)', (source) => {
    expect(defaultLink(source)).toBeUndefined();
  });
});
