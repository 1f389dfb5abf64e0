import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { launchChromium } from './chromium.ts';
import { startEmbedded, untilExamplesServed, type EmbeddedTestOptions } from './embedded.ts';

export interface ExamplesInBrowser {
  dataDir: string;
  running: RunningEmbedded;
  browser: Browser;
}

/**
 * For the page tests of a file: an embedded instance with the example manifests' data served (`startEmbedded`,
 * `untilExamplesServed`) and a headless Chromium, started before the file's tests and stopped after them. The
 * answer gives them to a test once started.
 */
export function examplesInBrowser(prefix: string, options: EmbeddedTestOptions = {}): () => ExamplesInBrowser {
  let dataDir: string | undefined;
  let running: RunningEmbedded | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), prefix));
    running = await startEmbedded(dataDir, options);
    await untilExamplesServed(running);
    browser = await launchChromium();
  }, 70_000);
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return () => {
    if (!dataDir || !running || !browser) throw new Error('the instance and the browser did not start');
    return { dataDir, running, browser };
  };
}
