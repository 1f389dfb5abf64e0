import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DerError } from './der.ts';
import { JKS_MAGIC, readJks } from './jks.ts';
import type { KeystoreEntry } from './keystore-entry.ts';
import { WrongPasswordError } from './pbe.ts';
import { readPkcs12 } from './pkcs12.ts';

/** A keystore that cannot give the signing key: the message says which setting to fix. */
export class KeystoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeystoreError';
  }
}

export interface KeystoreSettings {
  path: string;
  password: string;
  alias: string;
  /** Password of the key entry; the keystore password when absent. */
  keyPassword?: string;
}

export interface KeystoreKeys {
  format: 'PKCS#12' | 'JKS';
  /** The entry named by the alias: it signs. */
  privateKey: KeyObject;
  /** Public keys of the keystore's other RSA entries: published, so tokens they signed still verify. */
  retired: KeyObject[];
}

export const MIN_RSA_BITS = 2048;

/** The entries of a keystore file in either format, told apart by content rather than by file name. */
export function readKeystore(
  bytes: Buffer,
  password: string,
): { format: KeystoreKeys['format']; entries: KeystoreEntry[] } {
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === JKS_MAGIC)
    return { format: 'JKS', entries: readJks(bytes, password) };
  return { format: 'PKCS#12', entries: readPkcs12(bytes, password) };
}

function findEntry(entries: KeystoreEntry[], alias: string): KeystoreEntry | undefined {
  // Java treats aliases case-insensitively (keytool stores JKS aliases in lower case).
  return entries.find((e) => e.alias === alias) ?? entries.find((e) => e.alias.toLowerCase() === alias.toLowerCase());
}

/** Why a key may not sign tokens (spec 2: RSA only), or undefined when it may. */
export function rsaKeyRefusal(key: KeyObject): string | undefined {
  if (key.asymmetricKeyType !== 'rsa')
    return `it is ${key.asymmetricKeyType ?? 'not asymmetric'}; only RSA keys sign tokens`;
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  return bits < MIN_RSA_BITS ? `it has ${bits} bits; at least ${MIN_RSA_BITS} are required` : undefined;
}

/** Loads the signing key (and the retired public keys) from a PKCS#12 or JKS keystore, or says why it cannot. */
export async function loadKeystore(settings: KeystoreSettings): Promise<KeystoreKeys> {
  const where = `keystore ${settings.path}`;
  const bytes = await readFile(settings.path).catch((err: NodeJS.ErrnoException) => {
    throw new KeystoreError(`${where}: cannot be read (${err.code ?? err.message})`);
  });
  let format: KeystoreKeys['format'];
  let entries: KeystoreEntry[];
  try {
    ({ format, entries } = readKeystore(bytes, settings.password));
  } catch (err) {
    if (err instanceof WrongPasswordError) throw new KeystoreError(`${where}: ${err.message}`);
    if (err instanceof DerError)
      throw new KeystoreError(`${where}: not a readable PKCS#12 or JKS keystore (${err.message})`);
    throw err;
  }
  const entry = findEntry(entries, settings.alias);
  const aliases = entries.map((e) => e.alias).join(', ') || 'none';
  if (!entry) throw new KeystoreError(`${where}: no entry with alias "${settings.alias}" (aliases: ${aliases})`);
  if (!entry.privateKey) throw new KeystoreError(`${where}: the entry "${entry.alias}" holds no private key`);
  let privateKey: KeyObject;
  try {
    privateKey = entry.privateKey(settings.keyPassword ?? settings.password);
  } catch (err) {
    if (err instanceof DerError) throw new KeystoreError(`${where}: ${err.message}`);
    // A wrong password that happened to pass the cipher's padding check leaves bytes that are no key.
    throw new KeystoreError(`${where}: key "${entry.alias}": the key password is wrong`);
  }
  const refusal = rsaKeyRefusal(privateKey);
  if (refusal) throw new KeystoreError(`${where}: the key "${entry.alias}" cannot sign tokens: ${refusal}`);
  const active = createPublicKey(privateKey).export({ format: 'jwk' }).n;
  const retired = entries
    .filter((e) => e !== entry && e.certificates[0])
    .map((e) => e.certificates[0]!.publicKey)
    .filter((key) => rsaKeyRefusal(key) === undefined && key.export({ format: 'jwk' }).n !== active);
  return { format, privateKey, retired };
}
