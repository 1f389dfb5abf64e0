import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from './health-server.ts';

describe('the operator health server', () => {
  let server: HealthServer;
  afterEach(() => server.close());

  it('is live at once, ready only when told, and serves the registry', async () => {
    let ready = false;
    const registry = new Registry();
    new Counter({ name: 'probe_test_total', help: 'a test counter', registers: [registry] }).inc();
    server = await startHealthServer({ host: '127.0.0.1', port: 0, registry, ready: () => ready });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${server.url}/metrics`)).text()).toContain('probe_test_total 1');
    expect((await fetch(`${server.url}/other`)).status).toBe(404);
  });
});
