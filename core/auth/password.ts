import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes: scrypt from node:crypto, stored as a PHC-style string that carries its own parameters, so the
 * cost can be raised later without invalidating stored hashes: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64url).
 */
export interface ScryptCost {
  /** log2 of N, the CPU/memory cost. */
  ln: number;
  r: number;
  p: number;
}

/** 2^15 x 8 x 128 bytes = 32 MiB and about 0.1 s per hash on one core: OWASP's floor for scrypt. */
export const DEFAULT_COST: ScryptCost = { ln: 15, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function scrypt(password: string, salt: Buffer, length: number, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = {
    N: 2 ** cost.ln,
    r: cost.r,
    p: cost.p,
    // node refuses more than 32 MiB by default; allow what the parameters need, with headroom.
    maxmem: 256 * 2 ** cost.ln * cost.r,
  };
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function formatHash(cost: ScryptCost, salt: Buffer, key: Buffer): string {
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  return formatHash(cost, salt, await scrypt(password, salt, KEY_LENGTH, cost));
}

/**
 * A stored value that hashes no password: checking a password against it costs what checking one against a real
 * hash of the same cost does, which is what a refused sign-in of an unknown user must cost.
 */
export function decoyHash(cost: ScryptCost): string {
  return formatHash(cost, randomBytes(SALT_LENGTH), randomBytes(KEY_LENGTH));
}

/** The parts of a stored hash, or undefined when it is no hash of this format that may be checked. */
export function parseHash(stored: string): { cost: ScryptCost; salt: Buffer; key: Buffer } | undefined {
  const match = FORMAT.exec(stored.trim());
  if (!match) return undefined;
  const cost = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  // Bounds keep a tampered hash from asking for gigabytes of memory.
  if (cost.ln < 10 || cost.ln > 20 || cost.r < 1 || cost.r > 32 || cost.p < 1 || cost.p > 16) return undefined;
  const key = Buffer.from(match[5]!, 'base64url');
  if (key.length < 16) return undefined;
  return { cost, salt: Buffer.from(match[4]!, 'base64url'), key };
}

/** Whether `password` matches `stored`; a stored value that is not a hash of this format never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const key = await scrypt(password, parsed.salt, parsed.key.length, parsed.cost);
  return timingSafeEqual(key, parsed.key);
}
