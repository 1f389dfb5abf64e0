import type { KeyObject, X509Certificate } from 'node:crypto';

/** One entry of a keystore, whatever its format (PKCS#12 or JKS). */
export interface KeystoreEntry {
  alias: string;
  kind: 'private-key' | 'trusted-certificate';
  /** The certificate chain of a key entry (leaf first), or the one trusted certificate. */
  certificates: X509Certificate[];
  /** Decrypts the private key of a key entry with the key password; throws WrongPasswordError. */
  privateKey?: (keyPassword: string) => KeyObject;
}
