import autocannon from 'autocannon';
import { Registry } from 'prom-client';
import { buildApp } from './api-server/app.ts';
import { openEmbeddedCluster } from './core/cluster/embedded/index.ts';
import { parseInstanceConfig } from './core/config/index.ts';
const cluster = await openEmbeddedCluster({ dataDir: '/tmp/dbg3' });
const app = await buildApp({ cluster, config: parseInstanceConfig('', 'x'), registry: new Registry(), logger: false });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
for (const p of ['/info', '/extent', '/health', '/openapi.json']) {
  const r = await autocannon({ url: url + p, connections: 16, duration: 3 });
  console.log(p, r.requests.average, r.non2xx);
}
process.exit(0);
