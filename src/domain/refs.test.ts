import { describe, expect, it } from 'vitest';
import { defaultLink, linkProblem, sourceKind, unsharedReason } from './refs.js';

describe('which sources the committed index may name', () => {
  it.each(['https://github.com/acme/style.git', 'ssh://git@github.com/acme/style.git', 'ssh://git@example.com:2222/srv/style.git', 'git@github.com:acme/style.git'])('%s: shared', (source) => {
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
  ])('%s: not shared', (source, why) => {
    expect(unsharedReason(source)).toMatch(why);
  });
});

describe('link names', () => {
  it.each(['style', 'style-v2', 'a.b_c', '0'])('%s is a plain name', (link) => {
    expect(linkProblem(link)).toBeUndefined();
  });

  it.each(['', '..', 'a..b', '.hidden', '-x', 'a/b', '../x', 'Style', 'index.json', 'index.local.json', 'x'.repeat(65), 'a b'])('%j is refused', (link) => {
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
