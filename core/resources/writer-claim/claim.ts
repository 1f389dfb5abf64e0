import { isApiError } from '../../cluster/errors.ts';
import type { Cluster } from '../../cluster/port.ts';
import { isFinished } from '../ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../ingestion/schema.ts';
import { writerClaimKind, type WriterClaim } from './schema.ts';

/**
 * One writer per target (a dataset or a feature collection; an export target for deliveries), guaranteed by the cluster: a WriterClaim per target
 * names the run that writes it, and changes hands only by create (409 when another created it first) or by an update
 * at the version read (409 when another changed it since). Whoever starts a run (the API, the operator for a run
 * applied as a resource) claims first; a claim fails while its holder is unfinished.
 */

/**
 * How long a holder that does not exist yet still holds: the API claims before it creates the run, and a claim
 * that is not followed by its run (the API server died in between) must not block the target for ever.
 */
export const UNBORN_HOLDER_MS = 60_000;

const CLAIM_ATTEMPTS = 5;

/** The claim of a target is named after it (a dataset or feature collection id is a valid name). */
export function writerClaimName(target: string): string {
  return target;
}

export type Claim = { claimed: true } | { claimed: false; holder: string };

/** Whether the run `holder` is unfinished; undefined when no such run exists (yet). */
export type HolderCheck = (cluster: Cluster, holder: string, namespace: string) => Promise<boolean | undefined>;

/** Ingestions hold the claims of the datasets and feature collections they write. */
const ingestionHolder: HolderCheck = async (cluster, holder, namespace) => {
  const run = await cluster.get<Ingestion>(ingestionKind, holder, namespace);
  return run ? !isFinished(run) : undefined;
};

async function holds(cluster: Cluster, claim: WriterClaim, namespace: string, now: Date, check: HolderCheck) {
  const unfinished = await check(cluster, claim.spec.holder, namespace);
  if (unfinished !== undefined) return unfinished;
  const acquired = Date.parse(claim.spec.acquiredAt);
  return Number.isFinite(acquired) && now.getTime() - acquired < UNBORN_HOLDER_MS;
}

/**
 * Makes `run` the writer of `target` unless an unfinished run (or one being created) holds it. Idempotent for the
 * holder itself; concurrent claims resolve to exactly one winner through the cluster's conflicts.
 */
export async function claimWriter(
  cluster: Cluster,
  namespace: string,
  target: string,
  run: string,
  now: () => Date = () => new Date(),
  check: HolderCheck = ingestionHolder,
): Promise<Claim> {
  const name = writerClaimName(target);
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const spec = { holder: run, acquiredAt: now().toISOString() };
    const claim = await cluster.get<WriterClaim>(writerClaimKind, name, namespace);
    try {
      if (!claim) {
        await cluster.create<WriterClaim>(writerClaimKind, {
          apiVersion: writerClaimKind.apiVersion,
          kind: writerClaimKind.kind,
          metadata: { name, namespace },
          spec,
        } as WriterClaim);
        return { claimed: true };
      }
      if (claim.spec.holder === run) return { claimed: true };
      if (await holds(cluster, claim, namespace, now(), check)) return { claimed: false, holder: claim.spec.holder };
      // The update carries the version read: it fails if another claim changed the record since.
      await cluster.update<WriterClaim>(writerClaimKind, { ...claim, spec });
      return { claimed: true };
    } catch (err) {
      if (!isApiError(err, 'Conflict') && !isApiError(err, 'AlreadyExists')) throw err;
    }
  }
  const claim = await cluster.get<WriterClaim>(writerClaimKind, name, namespace);
  return { claimed: false, holder: claim?.spec.holder ?? 'another run' };
}
