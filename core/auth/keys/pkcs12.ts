import { createHmac, createPrivateKey, timingSafeEqual, X509Certificate } from 'node:crypto';
import {
  bmpStringOf,
  childrenOf,
  DerError,
  explicit,
  expectTag,
  integerOf,
  octetsOf,
  oidOf,
  parseDer,
  sequence,
  TAG,
  type DerNode,
} from './der.ts';
import { decryptPrivateKeyInfo, decryptWithPassword, DIGEST, pkcs12Kdf, WrongPasswordError } from './pbe.ts';
import type { KeystoreEntry } from './keystore-entry.ts';

/** PKCS#12 (RFC 7292), as openssl and keytool write it: password integrity, shrouded keys, certificates. */

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  keyBag: '1.2.840.113549.1.12.10.1.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
  pbmac1: '1.2.840.113549.1.5.14',
} as const;

interface Bag {
  type: 'key' | 'shrouded-key' | 'certificate';
  value: DerNode;
  friendlyName?: string;
  localKeyId?: string;
}

function attributesOf(node: DerNode | undefined): Pick<Bag, 'friendlyName' | 'localKeyId'> {
  const found: Pick<Bag, 'friendlyName' | 'localKeyId'> = {};
  if (!node) return found;
  for (const attribute of childrenOf(expectTag(node, TAG.SET, 'bag attributes'))) {
    const [idNode, values] = sequence(attribute, 'bag attribute');
    const [first] = childrenOf(expectTag(values, TAG.SET, 'attribute values'));
    const id = oidOf(idNode);
    if (id === OID.friendlyName) found.friendlyName = bmpStringOf(first, 'friendlyName');
    if (id === OID.localKeyId) found.localKeyId = octetsOf(first, 'localKeyId').toString('hex');
  }
  return found;
}

function bagsOf(safeContents: Buffer): Bag[] {
  const bags: Bag[] = [];
  for (const bag of sequence(parseDer(safeContents), 'SafeContents')) {
    const [idNode, valueNode, attributes] = sequence(bag, 'SafeBag');
    const id = oidOf(idNode);
    const type =
      id === OID.keyBag
        ? 'key'
        : id === OID.shroudedKeyBag
          ? 'shrouded-key'
          : id === OID.certBag
            ? 'certificate'
            : undefined;
    if (type) bags.push({ type, value: explicit(valueNode, 0, 'bag value'), ...attributesOf(attributes) });
  }
  return bags;
}

function verifyMac(macData: DerNode, authSafe: Buffer, password: string): void {
  const [digestInfo, saltNode, countNode] = sequence(macData, 'MacData');
  const [algorithm, expectedNode] = sequence(digestInfo, 'MAC DigestInfo');
  const oid = oidOf(sequence(algorithm, 'MAC algorithm')[0]);
  if (oid === OID.pbmac1) throw new DerError('PBMAC1 integrity (openssl -pbmac1_pbkdf2) is not supported');
  const digest = DIGEST[oid];
  if (!digest) throw new DerError(`unsupported MAC digest ${oid}`);
  const rounds = countNode ? integerOf(countNode, 'MAC iterations') : 1;
  const key = pkcs12Kdf(password, octetsOf(saltNode, 'MAC salt'), 3, rounds, digest.size, digest);
  const actual = createHmac(digest.name, key).update(authSafe).digest();
  const expected = octetsOf(expectedNode, 'MAC');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new WrongPasswordError('the keystore password is wrong (the PKCS#12 integrity check failed)');
  }
}

/** Every SafeBag of the authenticated safe; encrypted safes it cannot open are reported in `unreadable`. */
function allBags(authSafe: Buffer, password: string): { bags: Bag[]; unreadable: string[] } {
  const bags: Bag[] = [];
  const unreadable: string[] = [];
  for (const contentInfo of sequence(parseDer(authSafe), 'AuthenticatedSafe')) {
    const [typeNode, content] = sequence(contentInfo, 'ContentInfo');
    const type = oidOf(typeNode);
    if (type === OID.data) bags.push(...bagsOf(octetsOf(explicit(content, 0, 'data'))));
    else if (type === OID.encryptedData) {
      const [, encryptedContentInfo] = sequence(explicit(content, 0, 'encryptedData'), 'EncryptedData');
      const [, algorithm, encrypted] = sequence(encryptedContentInfo, 'EncryptedContentInfo');
      // [0] IMPLICIT OCTET STRING: primitive (0x80) or, rarely, constructed of octet strings (0xa0).
      const data =
        encrypted?.tag === 0x80
          ? encrypted.content
          : Buffer.concat(childrenOf(expectTag(encrypted, 0xa0, 'encryptedContent')).map((n) => octetsOf(n)));
      try {
        bags.push(...bagsOf(decryptWithPassword(algorithm!, data, password, 'encrypted safe')));
      } catch (err) {
        // Certificates are often in a safe under RC2; the key, which is what signs, rarely is.
        unreadable.push((err as Error).message);
      }
    }
  }
  return { bags, unreadable };
}

function certificateOf(bag: Bag): X509Certificate | undefined {
  const [typeNode, value] = sequence(bag.value, 'CertBag');
  if (oidOf(typeNode) !== OID.x509Certificate) return undefined;
  return new X509Certificate(octetsOf(explicit(value, 0, 'certificate')));
}

/** Reads a PKCS#12 file: checks its integrity with `password` and lists its entries by alias. */
export function readPkcs12(bytes: Buffer, password: string): KeystoreEntry[] {
  const [versionNode, authSafeInfo, macData] = sequence(parseDer(bytes), 'PFX');
  if (integerOf(versionNode, 'PFX version') !== 3) throw new DerError('not a PKCS#12 version 3 file');
  const [typeNode, content] = sequence(authSafeInfo, 'authSafe');
  if (oidOf(typeNode) !== OID.data) throw new DerError('public-key integrity mode is not supported');
  const authSafe = octetsOf(explicit(content, 0, 'authSafe content'));
  if (macData) verifyMac(macData, authSafe, password);

  const { bags, unreadable } = allBags(authSafe, password);
  const certificates = bags.filter((b) => b.type === 'certificate');
  const certsOf = (localKeyId: string | undefined) =>
    certificates
      .filter((c) => localKeyId !== undefined && c.localKeyId === localKeyId)
      .flatMap((c) => certificateOf(c) ?? []);
  const entries: KeystoreEntry[] = [];
  for (const bag of bags.filter((b) => b.type !== 'certificate')) {
    const chain = certsOf(bag.localKeyId);
    const alias = bag.friendlyName ?? certificates.find((c) => c.localKeyId === bag.localKeyId)?.friendlyName;
    if (alias === undefined) continue;
    entries.push({
      alias,
      kind: 'private-key',
      certificates: chain,
      privateKey: (keyPassword) =>
        createPrivateKey({
          key: bag.type === 'key' ? bag.value.raw : decryptPrivateKeyInfo(bag.value, keyPassword, `key "${alias}"`),
          format: 'der',
          type: 'pkcs8',
        }),
    });
  }
  const keyIds = new Set(bags.filter((b) => b.type !== 'certificate').map((b) => b.localKeyId));
  for (const bag of certificates) {
    const certificate = bag.friendlyName !== undefined && !keyIds.has(bag.localKeyId) ? certificateOf(bag) : undefined;
    if (certificate)
      entries.push({ alias: bag.friendlyName!, kind: 'trusted-certificate', certificates: [certificate] });
  }
  if (entries.length === 0 && unreadable.length > 0) throw new DerError(unreadable[0]!);
  return entries;
}
