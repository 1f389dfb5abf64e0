import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DEFAULT_SCHEDULE_TIMEZONE, scheduleKind, type Schedule } from '../../../core/resources/schedule/schema.ts';
import { commonErrorResponses } from '../../schemas.ts';
import { scheduleListSchema } from './schemas.ts';

/** A schedule's clock has been taken up by the leader once its status records a next check for the current spec. */
const isRunning = (s: Schedule) =>
  s.spec.enabled && s.status?.nextCheck !== undefined && s.status.observedGeneration === s.metadata.generation;

/** The Schedule resources with the runtime state their leader records in their status. */
export const scheduleRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, config, namespace } = app.stratus;

  app.get(
    '/schedules',
    {
      schema: {
        summary: 'Configured schedules with their runtime status',
        tags: ['Sync'],
        response: { 200: scheduleListSchema, ...commonErrorResponses },
      },
    },
    async () => {
      const { items } = await cluster.list<Schedule>(scheduleKind, { namespace });
      const sorted = [...items].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
      return {
        enabled: !config.readOnly,
        running: sorted.some(isRunning),
        timezone: DEFAULT_SCHEDULE_TIMEZONE,
        schedules: sorted.map((s) => ({
          schedule_id: s.metadata.name,
          dataset_id: s.spec.datasetId,
          cron: s.spec.cron,
          timezone: s.spec.timezone,
          publish: s.spec.publish,
          max_attempts: s.spec.maxAttempts,
          enabled: s.spec.enabled,
          next_check: s.status?.nextCheck ?? null,
          last_check: s.status?.lastCheck ?? null,
          last_outcome: s.status?.lastOutcome ?? null,
          last_message: s.status?.lastMessage ?? null,
          last_job_id: s.status?.lastJobId ?? null,
        })),
      };
    },
  );
};
