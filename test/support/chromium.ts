import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/**
 * Debian's headless Chromium (scripts/install-interop-tools.sh, `make interop-tools`) driven by playwright-core:
 * never a browser download, and none of Chromium's own background traffic (updates, sync, QUIC probes).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Aborts every request of the context that would leave the machine and returns the list of those it aborted, so a
 * test can assert that a page needed nothing from outside (`data:` and `blob:` URLs never reach the router).
 */
export async function keepOnLoopback(context: BrowserContext): Promise<string[]> {
  const refused: string[] = [];
  await context.route(
    (url) => !LOOPBACK_HOSTS.has(url.hostname),
    async (route) => {
      refused.push(route.request().url());
      await route.abort('blockedbyclient');
    },
  );
  return refused;
}
