import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isApiError, isRetriable } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { contextAnnotations, type LogContext } from '../../../core/logging/context.ts';
import { DATASET_LABEL, isFinished } from '../../../core/resources/ingestion/run.ts';
import { claimWriter } from '../../../core/resources/writer-claim/claim.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import { HttpError } from '../../errors.ts';

/** The digest of the request a run was named after (`Runs.start` with `sameRequest`). */
export const REQUEST_DIGEST_ANNOTATION = 'climate.stratus.dev/request-digest';
/** How many names a request tries past runs of its own that failed, or of other requests that share its name. */
const MAX_NAMES = 20;

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

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
   * holds the target's writer claim (`core/resources/writer-claim/claim.ts`): there is one writer at a time, across API server
   * replicas and the operator, and a second start is refused with 409 naming the first. The run records the log
   * context of the request that started it, which its operator and worker lines then carry.
   *
   * With `sameRequest` (what, beside the spec, makes two requests the same: the periods they resolve to, the
   * version they find), the 8 hex come from a digest of both, so identical requests name one run: the first
   * creates it and the others are answered 409 naming it, while it runs and after it succeeded. The claim alone
   * cannot do this for a run that ends at once (one that reuses the current version): it is free again before the
   * next identical request claims it. After a failed or cancelled run the name is derived from the failed one, so
   * that identical retries again name one run.
   */
  async start(
    spec: Ingestion['spec'] & { datasetId: string },
    target: 'dataset' | 'feature collection',
    context: LogContext,
    sameRequest?: unknown,
  ): Promise<Ingestion> {
    const prefix = spec.datasetId.slice(0, 50);
    if (sameRequest === undefined)
      return this.#create(spec, target, context, `${prefix}-${randomBytes(4).toString('hex')}`);
    const digest = hex(JSON.stringify({ spec, sameRequest }));
    let name = `${prefix}-${digest.slice(0, 8)}`;
    for (let tried = 0; tried < MAX_NAMES; tried++) {
      const existing = await this.#cluster.get<Ingestion>(ingestionKind, name, this.#namespace);
      if (!existing) {
        try {
          return await this.#create(spec, target, context, name, digest);
        } catch (err) {
          // An identical request created it first: read it again.
          if (isApiError(err, 'AlreadyExists')) continue;
          throw err;
        }
      }
      const annotations = existing.metadata.annotations as Record<string, string> | undefined;
      if (annotations?.[REQUEST_DIGEST_ANNOTATION] === digest) {
        if (!isFinished(existing)) throw writing(existing.metadata.name, target, spec.datasetId);
        if (existing.status?.phase === 'successful')
          throw new HttpError(
            'Conflict',
            `Run ${name} already carried out this request on ${target} ${spec.datasetId}, which has not changed since`,
          );
      }
      name = `${prefix}-${hex(`${name}:${digest}`).slice(0, 8)}`;
    }
    throw new HttpError('Conflict', `Too many runs of this request on ${target} ${spec.datasetId} failed; retry later`);
  }

  async #create(
    spec: Ingestion['spec'] & { datasetId: string },
    target: 'dataset' | 'feature collection',
    context: LogContext,
    name: string,
    digest?: string,
  ): Promise<Ingestion> {
    const namespace = this.#namespace;
    const claim = await claimWriter(this.#cluster, namespace, spec.datasetId, name);
    if (!claim.claimed) throw writing(claim.holder, target, spec.datasetId);
    return this.#cluster.create<Ingestion>(ingestionKind, {
      apiVersion: API_VERSION,
      kind: ingestionKind.kind,
      metadata: {
        name,
        namespace,
        labels: { [DATASET_LABEL]: spec.datasetId, 'climate.stratus.dev/source': spec.source },
        annotations: { ...contextAnnotations(context), ...(digest && { [REQUEST_DIGEST_ANNOTATION]: digest }) },
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

const writing = (run: string, target: string, id: string) =>
  new HttpError('Conflict', `Run ${run} is already writing ${target} ${id}; wait for it or cancel it`);
