import { createDecipheriv, createHash, pbkdf2Sync } from 'node:crypto';
import { DerError, integerOf, octetsOf, oidOf, sequence, type DerNode } from './der.ts';

/**
 * Password-based decryption for keystores: PBES2 (PBKDF2 + AES or 3DES, what openssl 3 and keytool write today)
 * and PKCS#12's own pbeWithSHAAnd3-KeyTripleDES-CBC (older keytool and openssl), plus the PKCS#12 key derivation
 * that the integrity MAC uses (RFC 7292 appendix B). RC2 and RC4, which Node's OpenSSL 3 no longer offers, are
 * refused with a message.
 */
export class WrongPasswordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WrongPasswordError';
  }
}

const OID = {
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
  pbeSha1TripleDes: '1.2.840.113549.1.12.1.3',
  pbeSha1TwoKeyTripleDes: '1.2.840.113549.1.12.1.4',
} as const;

/** PBKDF2 pseudo-random functions by OID. */
const PRF: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.8': 'sha224',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};

/** Block ciphers of PBES2 by OID: Node's name and key length. */
const CIPHER: Record<string, { name: string; keyLength: number }> = {
  '2.16.840.1.101.3.4.1.2': { name: 'aes-128-cbc', keyLength: 16 },
  '2.16.840.1.101.3.4.1.22': { name: 'aes-192-cbc', keyLength: 24 },
  '2.16.840.1.101.3.4.1.42': { name: 'aes-256-cbc', keyLength: 32 },
  '1.2.840.113549.3.7': { name: 'des-ede3-cbc', keyLength: 24 },
};

/** Digests by OID, for the PKCS#12 MAC. */
export const DIGEST: Record<string, { name: string; blockSize: number; size: number }> = {
  '1.3.14.3.2.26': { name: 'sha1', blockSize: 64, size: 20 },
  '2.16.840.1.101.3.4.2.4': { name: 'sha224', blockSize: 64, size: 28 },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256', blockSize: 64, size: 32 },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384', blockSize: 128, size: 48 },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512', blockSize: 128, size: 64 },
};

/** Iteration counts beyond this are refused: a keystore must not make startup hang. */
const MAX_ITERATIONS = 10_000_000;

function iterations(node: DerNode | undefined): number {
  const count = integerOf(node, 'iteration count');
  if (count < 1 || count > MAX_ITERATIONS) throw new DerError(`iteration count ${count} is out of range`);
  return count;
}

/** The password as PKCS#12 hashes it: UTF-16BE with a two-byte terminator. */
function bmpPassword(password: string): Buffer {
  const bytes = Buffer.alloc((password.length + 1) * 2);
  for (let i = 0; i < password.length; i++) bytes.writeUInt16BE(password.charCodeAt(i), i * 2);
  return bytes;
}

function repeatTo(source: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length && source.length > 0; i++) out[i] = source[i % source.length]!;
  return out;
}

/** RFC 7292 appendix B.2: `id` 1 derives a key, 2 an IV, 3 a MAC key. */
export function pkcs12Kdf(
  password: string,
  salt: Buffer,
  id: 1 | 2 | 3,
  rounds: number,
  length: number,
  digest: { name: string; blockSize: number; size: number },
): Buffer {
  const v = digest.blockSize;
  const pass = bmpPassword(password);
  const D = Buffer.alloc(v, id);
  const S = repeatTo(salt, v * Math.ceil(salt.length / v));
  const P = repeatTo(pass, v * Math.ceil(pass.length / v));
  const I = Buffer.concat([S, P]);
  const blocks: Buffer[] = [];
  for (let produced = 0; produced < length; produced += digest.size) {
    let A = createHash(digest.name).update(D).update(I).digest();
    for (let r = 1; r < rounds; r++) A = createHash(digest.name).update(A).digest();
    blocks.push(A);
    const B = repeatTo(A, v);
    // I_j = (I_j + B + 1) mod 2^(8v) for each v-byte block of I.
    for (let j = 0; j < I.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k]! + B[k]! + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(blocks).subarray(0, length);
}

function decipher(name: string, key: Buffer, iv: Buffer, data: Buffer, what: string): Buffer {
  try {
    const d = createDecipheriv(name, key, iv);
    return Buffer.concat([d.update(data), d.final()]);
  } catch {
    // A wrong key shows as bad padding (almost always); the caller's integrity check catches the rest.
    throw new WrongPasswordError(`${what}: the password is wrong`);
  }
}

/**
 * Decrypts `data` encrypted under the algorithm `algorithm` (an AlgorithmIdentifier) with `password`.
 * `what` names the object in messages.
 */
export function decryptWithPassword(algorithm: DerNode, data: Buffer, password: string, what: string): Buffer {
  const [oidNode, params] = sequence(algorithm, `${what}: algorithm`);
  const oid = oidOf(oidNode);
  if (oid === OID.pbes2) {
    const [kdf, scheme] = sequence(params, `${what}: PBES2 parameters`);
    const [kdfOid, kdfParams] = sequence(kdf, `${what}: key derivation`);
    if (oidOf(kdfOid) !== OID.pbkdf2) throw new DerError(`${what}: only PBKDF2 is supported in PBES2`);
    const [saltNode, countNode, ...rest] = sequence(kdfParams, `${what}: PBKDF2 parameters`);
    const prfNode = rest.find((n) => n.tag === 0x30);
    const prf = prfNode ? PRF[oidOf(sequence(prfNode, 'PRF')[0])] : 'sha1';
    if (!prf) throw new DerError(`${what}: unsupported PBKDF2 pseudo-random function`);
    const [cipherOid, ivNode] = sequence(scheme, `${what}: encryption scheme`);
    const cipher = CIPHER[oidOf(cipherOid)];
    if (!cipher) throw new DerError(`${what}: unsupported cipher ${oidOf(cipherOid)} in PBES2`);
    const key = pbkdf2Sync(
      Buffer.from(password, 'utf8'),
      octetsOf(saltNode),
      iterations(countNode),
      cipher.keyLength,
      prf,
    );
    return decipher(cipher.name, key, octetsOf(ivNode, 'IV'), data, what);
  }
  if (oid === OID.pbeSha1TripleDes || oid === OID.pbeSha1TwoKeyTripleDes) {
    const [saltNode, countNode] = sequence(params, `${what}: PBE parameters`);
    const salt = octetsOf(saltNode);
    const rounds = iterations(countNode);
    const sha1 = DIGEST['1.3.14.3.2.26']!;
    let key = pkcs12Kdf(password, salt, 1, rounds, 24, sha1);
    if (oid === OID.pbeSha1TwoKeyTripleDes) key = Buffer.concat([key.subarray(0, 16), key.subarray(0, 8)]);
    const iv = pkcs12Kdf(password, salt, 2, rounds, 8, sha1);
    return decipher('des-ede3-cbc', key, iv, data, what);
  }
  throw new DerError(
    `${what}: unsupported encryption ${oid} (RC2 and RC4 are not available; re-export the keystore with AES, e.g. openssl pkcs12 -export without -legacy)`,
  );
}

/** Decrypts an EncryptedPrivateKeyInfo (PKCS#8) into the DER of its PrivateKeyInfo. */
export function decryptPrivateKeyInfo(encrypted: DerNode, password: string, what: string): Buffer {
  const [algorithm, data] = sequence(encrypted, `${what}: encrypted private key`);
  return decryptWithPassword(algorithm!, octetsOf(data), password, what);
}
