import { describe, expect, it } from 'vitest';
import { loginPage } from './pages.ts';

const page = (image: string, imagePadding?: string) =>
  loginPage({
    instanceName: 'x',
    action: '/login',
    csrf: 'c',
    returnTo: '/',
    providers: [{ href: '/oauth2/authorization/peer', label: 'Peer', image, imagePadding }],
  });

describe('the login page’s provider buttons', () => {
  it.each([
    ['img/peer.svg', '2px 4px', '<img src="img/peer.svg" alt="" style="padding: 2px 4px"'],
    ['/static/peer.svg', '0.5rem', '<img src="/static/peer.svg" alt="" style="padding: 0.5rem"'],
    ['img/peer.svg', '1px; background: url(https://evil.example.org/)', '<img src="img/peer.svg" alt="" style=""'],
  ])('show image %j with padding %j as %j', (image, padding, expected) => {
    expect(page(image, padding).replace(/\s+/g, ' ')).toContain(expected);
  });

  it.each(['https://evil.example.org/x.svg', '//evil.example.org/x.svg', 'javascript:alert(1)', 'a"b.svg'])(
    'leave out an image that is not a path on this instance: %j',
    (image) => {
      const html = page(image);
      expect(html).not.toContain('<img');
      expect(html).toContain('<span>Peer</span>');
    },
  );
});
