import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { isFinished } from '../../../core/resources/ingestion/run.ts';
import { scheduleKind, type Schedule } from '../../../core/resources/schedule/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { datasetRuns } from '../dataset/runs.ts';
import type { Leadership } from '../../runtime/leadership.ts';
import { SCHEDULE_LABEL } from './check.ts';
import { planSchedule, type ScheduleObserved } from './plan.ts';

export function scheduleController(options: {
  readOnly: boolean;
  leadership: Leadership;
}): ControllerDefinition<Schedule, ScheduleObserved> {
  return {
    name: 'schedule',
    kind: scheduleKind,
    observe: async (schedule, cluster, _jobs, caches) => {
      const leader = options.leadership.isLeader();
      const { namespace } = schedule.metadata;
      const id = schedule.spec.datasetId;
      const dataset = leader ? await cluster.get<Dataset>(datasetKind, id, namespace) : undefined;
      const source = dataset && (await cluster.get<DataSource>(dataSourceKind, dataset.spec.source, namespace));
      const runs = leader ? await datasetRuns(caches, cluster, namespace, id) : [];
      return {
        leader,
        readOnly: options.readOnly,
        dataset,
        source,
        activeRuns: runs.filter((run) => !isFinished(run)).map((run) => run.metadata.name),
        scheduledRuns: runs.filter(
          (run) =>
            (run.metadata.labels as Record<string, string> | undefined)?.[SCHEDULE_LABEL] === schedule.metadata.name,
        ),
      };
    },
    plan: planSchedule,
  };
}
