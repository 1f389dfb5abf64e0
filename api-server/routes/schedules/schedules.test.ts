import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { scheduleKind, type Schedule } from '../../../core/resources/schedule/schema.ts';
import { build } from '../../test/build.ts';

const schedule = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: 'Schedule',
  metadata: { name, namespace: 'default' },
  spec: {
    datasetId: 'sample',
    cron: '30 2 * * *',
    timezone: 'UTC',
    publish: true,
    maxAttempts: 3,
    enabled: true,
    ...spec,
  },
});

describe('GET /schedules', () => {
  it('lists no schedules on a fresh instance', async () => {
    const { app } = await build();
    expect((await app.inject({ url: '/schedules' })).json()).toEqual({
      enabled: true,
      running: false,
      timezone: 'UTC',
      schedules: [],
    });
  });

  it('reports each schedule with the runtime state its status records', async () => {
    const { app, cluster } = await build();
    const created = await cluster.create<Schedule>(scheduleKind, schedule('b-daily') as Schedule);
    await cluster.create(scheduleKind, schedule('a-off', { enabled: false, timezone: 'Africa/Freetown' }));
    await cluster.patchStatus(
      scheduleKind,
      'b-daily',
      {
        type: 'merge',
        body: {
          status: {
            observedGeneration: created.metadata.generation,
            nextCheck: '2025-03-02T02:30:00.000Z',
            lastCheck: '2025-03-01T02:30:01.000Z',
            lastOutcome: 'submitted',
            lastMessage: 'Started sync run b-daily-20250301t0230.',
            lastJobId: 'b-daily-20250301t0230',
          },
        },
      },
      'default',
    );
    const body = (await app.inject({ url: '/schedules' })).json();
    expect(body).toMatchObject({ enabled: true, running: true });
    expect(body.schedules).toEqual([
      {
        schedule_id: 'a-off',
        dataset_id: 'sample',
        cron: '30 2 * * *',
        timezone: 'Africa/Freetown',
        publish: true,
        max_attempts: 3,
        enabled: false,
        next_check: null,
        last_check: null,
        last_outcome: null,
        last_message: null,
        last_job_id: null,
      },
      expect.objectContaining({
        schedule_id: 'b-daily',
        next_check: '2025-03-02T02:30:00.000Z',
        last_outcome: 'submitted',
        last_job_id: 'b-daily-20250301t0230',
      }),
    ]);
  });

  it('says schedules are not enabled on a read-only instance', async () => {
    const { app } = await build('instance.name = Test\ninstance.bbox = 0,0,1,1\nread_only = on');
    expect((await app.inject({ url: '/schedules' })).json()).toMatchObject({ enabled: false, running: false });
  });
});
