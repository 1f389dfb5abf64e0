import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password.ts';

const cheap = { ln: 10, r: 8, p: 1 };

describe('password hashes', () => {
  it('verifies the password it hashed and refuses any other', async () => {
    const stored = await hashPassword('correct horse', cheap);
    expect(stored).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts every hash, so one password never hashes the same twice', async () => {
    expect(await hashPassword('same', cheap)).not.toBe(await hashPassword('same', cheap));
  });

  it('uses the cost written in the stored hash', async () => {
    const stronger = await hashPassword('pw', { ln: 11, r: 4, p: 2 });
    expect(stronger).toContain('$ln=11,r=4,p=2$');
    expect(await verifyPassword('pw', stronger)).toBe(true);
  });

  it.each([
    ['plain text', 'secret'],
    ['another algorithm', '$2b$10$abcdefghijklmnopqrstuu'],
    ['an absurd cost', '$scrypt$ln=40,r=8,p=1$c2FsdHNhbHRzYWx0c2E$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'],
    ['a short hash', '$scrypt$ln=10,r=8,p=1$c2FsdA$aGFzaA'],
  ])('never matches a stored value that is %s', async (_name, stored) => {
    expect(await verifyPassword('secret', stored)).toBe(false);
  });
});
