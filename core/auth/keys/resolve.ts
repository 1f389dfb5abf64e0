import type { Cluster } from '../../cluster/port.ts';
import { ConfigError, type InstanceConfig } from '../../config/index.ts';
import { ephemeralSigningKey, SIGNING_KEY_SECRET } from './ephemeral.ts';
import { KeystoreError, loadKeystore } from './keystore.ts';
import { signingKeys, type SigningKeys } from './signing-keys.ts';

/**
 * Spec 2's choice of the signing key at startup: the keystore when a path is configured (read once; its alias is
 * required), else the ephemeral key when `generate-if-missing` is true, else no start. Every refusal is a
 * ConfigError, which stops startup with its message.
 */
export async function resolveSigningKeys(
  keystore: InstanceConfig['oauth2']['keystore'],
  cluster: Cluster,
  namespace: string,
): Promise<SigningKeys> {
  if (keystore.path) {
    try {
      const keys = await loadKeystore({
        path: keystore.path,
        alias: keystore.alias ?? '',
        password: keystore.password ?? '',
        keyPassword: keystore.keyPassword ?? undefined,
      });
      return signingKeys(
        keys.privateKey,
        keys.retired,
        `${keys.format} keystore ${keystore.path}, alias ${keystore.alias}`,
      );
    } catch (err) {
      if (err instanceof KeystoreError) throw new ConfigError(`oauth2.server.jwt.keystore: ${err.message}`);
      throw err;
    }
  }
  if (!keystore.generateIfMissing) {
    throw new ConfigError(
      'oauth2.server.enabled = on needs a signing key: set oauth2.server.jwt.keystore.path (and alias), or ' +
        'oauth2.server.jwt.keystore.generate-if-missing = true',
    );
  }
  return signingKeys(
    await ephemeralSigningKey(cluster, namespace),
    [],
    `ephemeral RSA-2048 key in Secret ${namespace}/${SIGNING_KEY_SECRET}`,
  );
}
