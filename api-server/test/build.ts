import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { onTestFinished } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../../core/config/index.ts';
import { buildApp, type BuildAppOptions } from '../app.ts';

export interface Built {
  app: Awaited<ReturnType<typeof buildApp>>;
  storageRoot: string;
  cluster: EmbeddedCluster;
  logLines: () => Record<string, unknown>[];
}

/** The real app over a fresh embedded cluster, with its log captured; torn down when the test ends. */
export async function build(
  configText = 'instance.name = Test instance\ninstance.bbox = -13.5,6.9,-10.2,10.0',
  options: Pick<BuildAppOptions, 'processes' | 'now'> = {},
): Promise<Built> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stratus-api-'));
  const cluster = await openEmbeddedCluster({ dataDir });
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const app = await buildApp({
    cluster,
    config: parseInstanceConfig(configText, 'test'),
    registry: new Registry(),
    logger,
    healthCacheMs: 0,
    storageRoot: join(dataDir, 'store'),
    ...options,
  });
  onTestFinished(async () => {
    await app.close();
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    app,
    storageRoot: join(dataDir, 'store'),
    cluster,
    logLines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
