import type { Logger } from 'pino';
import { leaseKind } from '../../core/cluster/builtin-kinds.ts';
import { isApiError } from '../../core/cluster/errors.ts';
import { microTime, type KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import type { Leadership } from './leadership.ts';

export interface LeaseTimings {
  /** How long a Lease whose record does not change stays with its holder; counted in whole seconds. */
  leaseDurationMs: number;
  /** How long a leader keeps leading without a successful renewal before it gives up. */
  renewDeadlineMs: number;
  /** The pause between two attempts to acquire or renew. */
  retryPeriodMs: number;
}

/** The timings of client-go's leader election as controller-runtime configures them by default. */
export const defaultLeaseTimings: LeaseTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

export interface LeaderElectionOptions extends Partial<LeaseTimings> {
  cluster: Cluster;
  logger: Logger;
  /** The Lease (`coordination.k8s.io/v1`) that the candidates share. */
  name: string;
  namespace: string;
  /** Unique per candidate, e.g. the pod name. */
  identity: string;
  onStartedLeading: () => void;
  /** Called once when leadership is lost (not on a requested stop); a process should exit then. */
  onStoppedLeading: () => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubeObject & { spec?: LeaseSpec };

/**
 * Leader election on a Lease, after client-go's: a candidate takes the Lease when it is free or when its
 * record has not changed for a lease duration (measured on the candidate's own clock, so clock skew between
 * nodes does not matter), then renews it every retry period. A leader that cannot renew within the renew
 * deadline gives up and reports the loss; compare-and-swap on resourceVersion makes every take-over exclusive.
 */
export class LeaderElector {
  readonly #options: Required<LeaderElectionOptions>;
  #observed: { record: string; at: number } | undefined;
  #leading = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#options = { ...defaultLeaseTimings, ...options };
    if (this.#options.renewDeadlineMs >= this.#options.leaseDurationMs) {
      throw new Error('the renew deadline must be shorter than the lease duration');
    }
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /**
   * The elector as the controllers' `Leadership`: asked on every check, so a leader that lost the Lease answers
   * no from then on (until its process exits), never the answer of the moment it was wired.
   */
  readonly leadership: Leadership = { isLeader: () => this.#leading };

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops campaigning; a leader releases the Lease so that another candidate takes over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#wake?.();
    await this.#loop;
    if (this.#leading) {
      this.#leading = false;
      await this.#release().catch((err: unknown) => this.#options.logger.warn({ err }, 'releasing the lease failed'));
    }
  }

  async #run(): Promise<void> {
    const { retryPeriodMs, renewDeadlineMs, logger } = this.#options;
    let lastRenew = 0;
    while (!this.#stopped) {
      const held = await this.#tryAcquireOrRenew().catch((err: unknown) => {
        logger.warn({ err, lease: this.#options.name }, 'lease update failed');
        return false;
      });
      if (this.#stopped) return;
      const now = Date.now();
      if (held) {
        lastRenew = now;
        if (!this.#leading) {
          this.#leading = true;
          logger.info({ lease: this.#options.name, identity: this.#options.identity }, 'became leader');
          this.#options.onStartedLeading();
        }
      } else if (this.#leading && now - lastRenew >= renewDeadlineMs) {
        this.#leading = false;
        this.#stopped = true;
        logger.error({ lease: this.#options.name, identity: this.#options.identity }, 'leadership lost');
        this.#options.onStoppedLeading();
        return;
      }
      await this.#sleep(retryPeriodMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = setTimeout(resolve, ms);
    });
  }

  /** One attempt; true when this candidate holds the Lease afterwards. */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const { cluster, name, namespace, identity, leaseDurationMs } = this.#options;
    const now = new Date();
    const lease = await cluster.get<Lease>(leaseKind, name, namespace);
    const desired: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    if (!lease) {
      return this.#write(() =>
        cluster.create<Lease>(leaseKind, {
          apiVersion: leaseKind.apiVersion,
          kind: leaseKind.kind,
          metadata: { name, namespace },
          spec: desired,
        }),
      );
    }
    const spec = lease.spec ?? {};
    const record = JSON.stringify(spec);
    if (this.#observed?.record !== record) this.#observed = { record, at: now.getTime() };
    const heldByMe = spec.holderIdentity === identity;
    const free = !spec.holderIdentity;
    const expired = now.getTime() - this.#observed.at >= (spec.leaseDurationSeconds ?? 0) * 1000;
    if (!heldByMe && !free && !expired) return false;
    const next: LeaseSpec = heldByMe
      ? { ...spec, renewTime: desired.renewTime, leaseDurationSeconds: desired.leaseDurationSeconds }
      : { ...desired, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    return this.#write(() => cluster.update<Lease>(leaseKind, { ...lease, spec: next }));
  }

  /** A write that another candidate won (409) means this one does not hold the Lease. */
  async #write(write: () => Promise<Lease>): Promise<boolean> {
    try {
      const written = await write();
      this.#observed = { record: JSON.stringify(written.spec ?? {}), at: Date.now() };
      return true;
    } catch (err) {
      if (isApiError(err, 'Conflict') || isApiError(err, 'AlreadyExists')) return false;
      throw err;
    }
  }

  async #release(): Promise<void> {
    const { cluster, name, namespace, identity } = this.#options;
    const lease = await cluster.get<Lease>(leaseKind, name, namespace);
    if (lease?.spec?.holderIdentity !== identity) return;
    const now = microTime(new Date());
    const spec: LeaseSpec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now };
    await cluster.update<Lease>(leaseKind, { ...lease, spec });
  }
}
