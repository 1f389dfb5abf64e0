import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PasswordResetError, resetPassword } from '../core/auth/users/reset-password.ts';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import type { ResetAdminArgs } from './args.ts';

/**
 * `stratus reset-admin-password`: a new password for the first admin of an embedded data directory. It opens the
 * store as its owner, so while the server runs it is refused (StoreInUseError names the process to stop).
 */
export async function resetAdminPassword(args: ResetAdminArgs): Promise<string> {
  const dataDir = resolve(args.dataDir);
  const storeDir = join(dataDir, 'cluster');
  if (!existsSync(storeDir))
    throw new PasswordResetError(
      `no embedded store in ${dataDir}: make run creates it (and the first admin) on its first start`,
    );
  const cluster = await openEmbeddedCluster({ dataDir: storeDir });
  try {
    const reset = await resetPassword(cluster, 'default', args.username);
    return `new password of ${reset.username}: ${reset.password}  (shown once: note it now)
${reset.sessionsEnded} sign-in session(s) of ${reset.username} ended; start the server again with make run`;
  } finally {
    await cluster.close();
  }
}
