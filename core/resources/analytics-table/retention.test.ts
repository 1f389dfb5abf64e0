import { describe, expect, it } from 'vitest';
import type { Delivery } from '../delivery/schema.ts';
import { deliveredTableVersions } from './retention.ts';

const delivery = (table: string | undefined, version: string, phase?: string) =>
  ({
    metadata: { name: `d-${version}-${phase}` },
    spec: {
      exportId: 'e',
      ...(table ? { table: { name: table, version: { id: version, path: `p/${version}` } } } : { jobId: 'j' }),
    },
    ...(phase && { status: { phase } }),
  }) as unknown as Delivery;

describe('table versions deliveries read', () => {
  it('are those of the table that queued, running or retrying deliveries read, once each', () => {
    const deliveries = [
      delivery('t', 'v1'),
      delivery('t', 'v1', 'retrying'),
      delivery('t', 'v2', 'running'),
      delivery('t', 'v3', 'successful'),
      delivery('t', 'v4', 'failed'),
      delivery('other', 'v5', 'running'),
      delivery(undefined, 'v6', 'running'),
    ];
    expect(deliveredTableVersions('t', deliveries)).toEqual(['v1', 'v2']);
  });
});
