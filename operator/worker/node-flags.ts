/**
 * The flags every worker process runs with, forked (embedded mode) or as a Job's container (Kubernetes).
 *
 * An ingestion's COG tiles and response bodies (about 1.3 MB a period, several periods in flight) outlive a
 * scavenge and count towards the old generation's limit, which on a fresh heap of about 17 MB set off a full
 * collection every 11 to 14 periods. Starting that limit at 128 MB cut them from 20–26 to 7 in a year of daily
 * periods and the CPU per period by a fifth (docs/performance.md, 2026-11-26 "ingestion CPU"); a worker's pod
 * requests 512 MiB, so the room is there.
 */
export const WORKER_NODE_FLAGS = ['--initial-old-space-size=128'] as const;
