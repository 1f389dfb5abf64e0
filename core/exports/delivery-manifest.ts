/**
 * The provenance manifest of a delivery, built by its worker once every chunk has an outcome: the job or the
 * analytics table version it delivered, the payload it read (its digest), the target, every chunk's digest (of the data values it sends) and outcome, and the target's
 * import summary.
 */
import type { Checkpoint } from './checkpoint.ts';
import { reportOf } from './checkpoint.ts';
import { STRATUS_VERSION } from '../version.ts';
import { canonicalSha256 } from '../provenance/canonical-json.ts';
import { sha256Multihash } from '../provenance/digest.ts';
import type { DeliveryManifest } from '../provenance/manifest.ts';
import type { DeliveryTableSource } from '../resources/delivery/schema.ts';

export interface DeliveryRun {
  delivery: string;
  exportId: string;
  job?: string | undefined;
  table?: DeliveryTableSource | undefined;
  dryRun: boolean;
  payload: { path: string; sha256: string; size: number };
  target: { type: string; url: string };
  checkpoint: Checkpoint;
  finishedAt: string;
}

export function deliveryManifest(run: DeliveryRun): DeliveryManifest {
  const { checkpoint } = run;
  return {
    type: 'delivery',
    delivery: run.delivery,
    export: run.exportId,
    ...(run.job !== undefined && { job: run.job }),
    ...(run.table && {
      table: {
        name: run.table.name,
        version: run.table.version.id,
        statistic: run.table.statistic,
        periodType: run.table.periodType,
        periods: run.table.periods,
        ...(run.table.orgUnits && { orgUnits: run.table.orgUnits }),
      },
    }),
    dryRun: run.dryRun,
    engine: { name: 'stratus', version: STRATUS_VERSION },
    payload: { path: run.payload.path, checksum: sha256Multihash(run.payload.sha256), size: run.payload.size },
    target: run.target,
    chunks: checkpoint.chunks.map((chunk) => ({
      index: chunk.index,
      strategy: chunk.strategy,
      values: chunk.values.length,
      sha256: canonicalSha256(chunk.values),
      outcome: chunk.outcome,
      ...(chunk.importCount && { importCount: chunk.importCount }),
    })),
    importSummary: reportOf(checkpoint, run.dryRun),
    startedAt: checkpoint.startedAt ?? run.finishedAt,
    finishedAt: run.finishedAt,
  };
}
