import { createHash, createPrivateKey, timingSafeEqual, X509Certificate } from 'node:crypto';
import { DerError, octetsOf, oidOf, parseDer, sequence } from './der.ts';
import type { KeystoreEntry } from './keystore-entry.ts';
import { WrongPasswordError } from './pbe.ts';

/**
 * Java's JKS keystore (magic 0xFEEDFEED, versions 1 and 2): a SHA-1 integrity digest keyed by the store password,
 * and private keys protected by Sun's KeyProtector (a SHA-1 keystream with a check digest) under the key password.
 */
export const JKS_MAGIC = 0xfeedfeed;
const JCEKS_MAGIC = 0xcececece;
const KEY_PROTECTOR_OID = '1.3.6.1.4.1.42.2.17.1.1';
const PRIVATE_KEY_ENTRY = 1;
const TRUSTED_CERT_ENTRY = 2;
const DIGEST_LENGTH = 20;

class Reader {
  offset = 0;
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
  #need(n: number): void {
    if (this.offset + n > this.bytes.length) throw new DerError('truncated JKS keystore');
  }
  u16(): number {
    this.#need(2);
    const v = this.bytes.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.#need(4);
    const v = this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  take(n: number): Buffer {
    this.#need(n);
    const v = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }
  /** Java's DataOutput.writeUTF: a length, then modified UTF-8 (plain UTF-8 for the aliases keytool writes). */
  utf(): string {
    return this.take(this.u16()).toString('utf8');
  }
}

/** UTF-16BE without terminator: how Java feeds a char[] password to a digest. */
function passwordBytes(password: string): Buffer {
  const bytes = Buffer.alloc(password.length * 2);
  for (let i = 0; i < password.length; i++) bytes.writeUInt16BE(password.charCodeAt(i), i * 2);
  return bytes;
}

/** Undoes Sun's KeyProtector: salt (20) || key XOR keystream || SHA-1(password || key) (20). */
function unprotect(protectedKey: Buffer, password: string, alias: string): Buffer {
  if (protectedKey.length < 2 * DIGEST_LENGTH) throw new DerError(`key "${alias}": protected key too short`);
  const pass = passwordBytes(password);
  const salt = protectedKey.subarray(0, DIGEST_LENGTH);
  const encrypted = protectedKey.subarray(DIGEST_LENGTH, protectedKey.length - DIGEST_LENGTH);
  const check = protectedKey.subarray(protectedKey.length - DIGEST_LENGTH);
  const plain = Buffer.alloc(encrypted.length);
  let digest: Buffer = salt;
  for (let i = 0; i < encrypted.length; i += DIGEST_LENGTH) {
    digest = createHash('sha1').update(pass).update(digest).digest();
    for (let j = 0; j < DIGEST_LENGTH && i + j < encrypted.length; j++) plain[i + j] = encrypted[i + j]! ^ digest[j]!;
  }
  const actual = createHash('sha1').update(pass).update(plain).digest();
  if (!timingSafeEqual(actual, check)) throw new WrongPasswordError(`key "${alias}": the key password is wrong`);
  return plain;
}

function readCertificate(reader: Reader, version: number): X509Certificate {
  if (version === 2) {
    const type = reader.utf();
    if (type !== 'X.509') throw new DerError(`unsupported certificate type ${type}`);
  }
  return new X509Certificate(reader.take(reader.u32()));
}

/** Reads a JKS keystore: checks its integrity with `password` and lists its entries by alias. */
export function readJks(bytes: Buffer, password: string): KeystoreEntry[] {
  const reader = new Reader(bytes);
  const magic = reader.u32();
  if (magic === JCEKS_MAGIC) throw new DerError('JCEKS keystores are not supported; convert it to PKCS#12 or JKS');
  if (magic !== JKS_MAGIC) throw new DerError('not a JKS keystore');
  const version = reader.u32();
  if (version !== 1 && version !== 2) throw new DerError(`unsupported JKS version ${version}`);
  const count = reader.u32();
  const entries: KeystoreEntry[] = [];
  for (let i = 0; i < count; i++) {
    const tag = reader.u32();
    const alias = reader.utf();
    reader.take(8); // creation date
    if (tag === PRIVATE_KEY_ENTRY) {
      const encrypted = reader.take(reader.u32());
      const chain = Array.from({ length: reader.u32() }, () => readCertificate(reader, version));
      entries.push({
        alias,
        kind: 'private-key',
        certificates: chain,
        privateKey: (keyPassword) => {
          const [algorithm, data] = sequence(parseDer(encrypted), `key "${alias}"`);
          if (oidOf(sequence(algorithm, 'key protection')[0]) !== KEY_PROTECTOR_OID)
            throw new DerError(`key "${alias}": unsupported key protection`);
          const pkcs8 = unprotect(octetsOf(data), keyPassword, alias);
          return createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
        },
      });
    } else if (tag === TRUSTED_CERT_ENTRY) {
      entries.push({ alias, kind: 'trusted-certificate', certificates: [readCertificate(reader, version)] });
    } else throw new DerError(`unknown JKS entry type ${tag}`);
  }
  const signed = bytes.subarray(0, reader.offset);
  const expected = reader.take(DIGEST_LENGTH);
  const actual = createHash('sha1')
    .update(passwordBytes(password))
    .update('Mighty Aphrodite', 'utf8')
    .update(signed)
    .digest();
  if (!timingSafeEqual(actual, expected))
    throw new WrongPasswordError('the keystore password is wrong (the JKS integrity check failed)');
  return entries;
}
