/**
 * Whether a process of this id runs on this host: signal 0 checks without signalling. EPERM means it exists but
 * belongs to another user. Used by the locks that name their holder by process id (the rolling log's lock, the
 * embedded store's owner file).
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
