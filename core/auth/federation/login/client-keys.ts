import { KeystoreError, loadKeystore } from '../../keys/keystore.ts';
import { signingKeys, type SigningKeys } from '../../keys/signing-keys.ts';

/** A provider's keystore settings (`oidc.provider.<id>.keystore_path`, `_password`, `key_alias`, `key_password`). */
export interface ClientKeystore {
  path: string;
  password: string;
  alias: string;
  keyPassword?: string;
}

/**
 * The key that signs a provider's `private_key_jwt` client assertions, read once at startup from the provider's
 * own keystore (spec 2: one per provider, apart from `oauth2.server.jwt.keystore.*`), with the same reader and
 * rules as the authorization server's keystore (PKCS#12 or JKS, RSA of at least 2048 bits). Its public half is
 * published at `/api/publicKeys/<client_id>/jwks.json`, which the provider fetches through the `jku` header.
 */
export async function loadClientKeys(providerKey: string, keystore: ClientKeystore): Promise<SigningKeys> {
  try {
    const keys = await loadKeystore(keystore);
    return signingKeys(keys.privateKey, [], `${keys.format} keystore ${keystore.path}, alias ${keystore.alias}`);
  } catch (err) {
    if (err instanceof KeystoreError) throw new KeystoreError(`oidc.provider.${providerKey}: ${err.message}`);
    throw err;
  }
}
