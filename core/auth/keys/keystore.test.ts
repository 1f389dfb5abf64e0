import { createVerify, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  keystoreDir,
  keytoolKeystore,
  opensslPkcs12,
  sharedKeystoreDir,
  type MadeKeystore,
} from '../../../test/support/keystores.ts';
import { loadKeystore } from './keystore.ts';

/** The loaded key signs, and the certificate the tool exported verifies the signature: it is that entry's key. */
function signsAsExported(made: MadeKeystore, key: KeyObject): boolean {
  const data = Buffer.from('stratus token');
  const signature = sign('sha256', data, key);
  return createVerify('sha256').update(data).verify(new X509Certificate(made.certificatePem).publicKey, signature);
}

const modulus = (key: KeyObject) => key.export({ format: 'jwk' }).n;

describe('keystores', () => {
  // keytool starts a JVM per call, seconds each on a busy machine: the keystores are made once for the file.
  let remove: () => Promise<void>;
  let p12: MadeKeystore;
  let legacyP12: MadeKeystore;
  let old: MadeKeystore;
  let jks: MadeKeystore;
  let keytoolP12: MadeKeystore;

  beforeAll(async () => {
    const shared = await sharedKeystoreDir();
    remove = shared.remove;
    const { dir } = shared;
    [p12, legacyP12, old] = await Promise.all([
      opensslPkcs12(dir, { alias: 'signer', password: 'store secret', file: 'openssl.p12' }),
      opensslPkcs12(dir, { alias: 'signer', password: 'pw', legacy: true, file: 'legacy.p12' }),
      opensslPkcs12(dir, { alias: 'old', password: 'pw', file: 'old.p12' }),
    ]);
    const jksOptions = { storePassword: 'storepw', keyPassword: 'keypass', storeType: 'JKS' as const };
    await keytoolKeystore(dir, { ...old, alias: 'old', password: 'pw' }, { ...jksOptions, alias: 'old' });
    [jks, keytoolP12] = await Promise.all([
      keytoolKeystore(dir, { ...p12, alias: 'signer', password: 'store secret' }, { ...jksOptions, alias: 'signer' }),
      keytoolKeystore(
        dir,
        { ...p12, alias: 'signer', password: 'store secret' },
        { alias: 'signer', storePassword: 'storepw', storeType: 'PKCS12', file: 'keytool.p12' },
      ),
    ]);
  }, 180_000);
  afterAll(() => remove());

  it('loads the key of a PKCS#12 file made by openssl 3 (PBES2, AES-256, HMAC-SHA256)', async () => {
    const keys = await loadKeystore({ path: p12.path, password: 'store secret', alias: 'signer' });
    expect(keys.format).toBe('PKCS#12');
    expect(signsAsExported(p12, keys.privateKey)).toBe(true);
  });

  it('loads the key of a legacy PKCS#12 file (SHA-1 MAC, 3DES)', async () => {
    const keys = await loadKeystore({ path: legacyP12.path, password: 'pw', alias: 'signer' });
    expect(signsAsExported(legacyP12, keys.privateKey)).toBe(true);
  });

  it('loads the key of a JKS keystore made by keytool, with its own key password, and publishes the other entry', async () => {
    const keys = await loadKeystore({ path: jks.path, password: 'storepw', alias: 'signer', keyPassword: 'keypass' });
    expect(keys.format).toBe('JKS');
    expect(signsAsExported(jks, keys.privateKey)).toBe(true);
    expect(keys.retired.map(modulus)).toEqual([modulus(new X509Certificate(old.certificatePem).publicKey)]);
  });

  it('loads the key of a PKCS12 keystore written by keytool, the alias matched without regard to case', async () => {
    const keys = await loadKeystore({ path: keytoolP12.path, password: 'storepw', alias: 'SIGNER' });
    expect(keys.format).toBe('PKCS#12');
    expect(signsAsExported(keytoolP12, keys.privateKey)).toBe(true);
  });

  it('says the keystore password is wrong, for both formats', async () => {
    await expect(loadKeystore({ path: p12.path, password: 'wrong', alias: 'signer' })).rejects.toThrow(
      `keystore ${p12.path}: the keystore password is wrong (the PKCS#12 integrity check failed)`,
    );
    await expect(
      loadKeystore({ path: jks.path, password: 'wrong', alias: 'signer', keyPassword: 'keypass' }),
    ).rejects.toThrow('the keystore password is wrong (the JKS integrity check failed)');
  });

  it('says the key password is wrong', async () => {
    // Without key-password the keystore password is tried, which is not this key's.
    await expect(loadKeystore({ path: jks.path, password: 'storepw', alias: 'signer' })).rejects.toThrow(
      'key "signer": the key password is wrong',
    );
  });

  it('names the aliases there are when the alias is not one of them', async () => {
    await expect(
      loadKeystore({ path: jks.path, password: 'storepw', alias: 'other', keyPassword: 'keypass' }),
    ).rejects.toThrow('no entry with alias "other" (aliases: old, signer)');
  });

  it.each([
    ['an EC key', { algorithm: 'ec' as const }, 'it is ec; only RSA keys sign tokens'],
    ['an RSA key of 1024 bits', { bits: 1024 }, 'it has 1024 bits; at least 2048 are required'],
  ])('refuses %s', async (_name, options, message) => {
    const made = await opensslPkcs12(await keystoreDir(), { alias: 'signer', password: 'pw', ...options });
    await expect(loadKeystore({ path: made.path, password: 'pw', alias: 'signer' })).rejects.toThrow(message);
  });

  it('refuses a file that is no keystore, and a missing file', async () => {
    const dir = await keystoreDir();
    await expect(loadKeystore({ path: join(dir, 'missing.p12'), password: 'pw', alias: 'a' })).rejects.toThrow(
      'cannot be read (ENOENT)',
    );
    await writeFile(join(dir, 'cert.pem'), p12.certificatePem);
    await expect(loadKeystore({ path: join(dir, 'cert.pem'), password: 'pw', alias: 'a' })).rejects.toThrow(
      'not a readable PKCS#12 or JKS keystore',
    );
  });
});
