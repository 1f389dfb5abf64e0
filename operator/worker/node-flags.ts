/**
 * The flags every worker process runs with, forked (embedded mode) or as a Job's container (Kubernetes).
 *
 * An ingestion's COG tiles and response bodies (several periods in flight) outlive a scavenge and count towards the
 * old generation's limit, which on a fresh heap is small enough to set off a full collection every few periods.
 * Starting that limit at 128 MB cuts most of those collections and the CPU they cost (measured in the history of
 * docs/performance.md, "ingestion CPU"); a worker's pod requests 512 MiB, so the room is there.
 */
export const WORKER_NODE_FLAGS = ['--initial-old-space-size=128'] as const;
