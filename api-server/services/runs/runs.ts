import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isApiError, isRetriable } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { contextAnnotations, type LogContext } from '../../../core/logging/context.ts';
import { DATASET_LABEL, isFinished } from '../../../core/resources/ingestion/run.ts';
import { claimWriter } from '../../../core/runs/writer-claim.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import { HttpError } from '../../errors.ts';

export interface RunsOptions {
  cluster: Cluster;
  /** Where runs are created. */
  namespace: string;
  /** The first pause before a broken watch is resumed (doubling up to 5 s); 250 ms unless given. */
  retryMs?: number;
}

/** Starting runs (Ingestion resources) and waiting for them: what the ingestion, sync and feature routes share. */
export class Runs {
  readonly #cluster: Cluster;
  readonly #namespace: string;
  readonly #retryMs: number;

  constructor({ cluster, namespace, retryMs = 250 }: RunsOptions) {
    this.#cluster = cluster;
    this.#namespace = namespace;
    this.#retryMs = retryMs;
  }

  /**
   * Creates a run named `<target>-<8 hex>`, labelled with its target and source so a watch can select it, once it
   * holds the target's writer claim (`core/runs/writer-claim.ts`): there is one writer at a time, across API server
   * replicas and the operator, and a second start is refused with 409 naming the first. The run records the log
   * context of the request that started it, which its operator and worker lines then carry.
   */
  async start(
    spec: Ingestion['spec'] & { datasetId: string },
    target: 'dataset' | 'feature collection',
    context: LogContext,
  ): Promise<Ingestion> {
    const namespace = this.#namespace;
    const name = `${spec.datasetId.slice(0, 50)}-${randomBytes(4).toString('hex')}`;
    const claim = await claimWriter(this.#cluster, namespace, spec.datasetId, name);
    if (!claim.claimed)
      throw new HttpError(
        'Conflict',
        `Run ${claim.holder} is already writing ${target} ${spec.datasetId}; wait for it or cancel it`,
      );
    return this.#cluster.create<Ingestion>(ingestionKind, {
      apiVersion: API_VERSION,
      kind: ingestionKind.kind,
      metadata: {
        name,
        namespace,
        labels: { [DATASET_LABEL]: spec.datasetId, 'climate.stratus.dev/source': spec.source },
        annotations: contextAnnotations(context),
      },
      spec,
    } as Ingestion);
  }

  /**
   * Resolves with the run once it has finished, or with undefined once it is deleted or `signal` aborts; the first
   * watch starts from the current state, so nothing is missed. The server ends every watch after the time the
   * Kubernetes adapter asks for (5 to 10 minutes), and a run may take longer: the wait goes on from the last version
   * it saw, or from the current state when that version left the server's history (410 Gone). A watch that broke (a
   * dead connection given up at its deadline, a 5xx) is resumed too, after a pause that doubles from `retryMs` up
   * to 5 s; a refusal ends the wait with its error.
   */
  async finished(run: Ingestion, signal: AbortSignal): Promise<Ingestion | undefined> {
    const retryMs = this.#retryMs;
    const { name, namespace } = run.metadata;
    const labelSelector = `${DATASET_LABEL}=${(run.metadata.labels as Record<string, string> | undefined)?.[DATASET_LABEL] ?? ''}`;
    let resourceVersion: string | undefined;
    let pause = retryMs;
    try {
      while (!signal.aborted) {
        try {
          const watch = this.#cluster.watch<Ingestion>(ingestionKind, {
            namespace,
            labelSelector,
            resourceVersion,
            signal,
          });
          for await (const event of watch) {
            resourceVersion = String(event.object.metadata.resourceVersion);
            pause = retryMs;
            if (event.type === 'DELETED' && event.object.metadata.name === name) return undefined;
            if (event.object.metadata.name === name && isFinished(event.object)) return event.object;
          }
        } catch (err) {
          if (isApiError(err, 'Gone')) resourceVersion = undefined;
          else if (isRetriable(err) && !signal.aborted) {
            await sleep(pause, undefined, { signal });
            pause = Math.min(pause * 2, 5_000);
          } else throw err;
        }
      }
    } catch (err) {
      if (signal.aborted) return undefined;
      throw err;
    }
    return undefined;
  }
}
