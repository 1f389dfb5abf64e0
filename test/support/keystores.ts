import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { onTestFinished } from 'vitest';

const run = promisify(execFile);

/**
 * Keystores made the way operators make them, by Debian's openssl and keytool (scripts/install-auth-tools.sh),
 * in a temporary directory removed when the test ends.
 */
async function tool(command: string, args: string[], cwd: string): Promise<void> {
  try {
    await run(command, args, { cwd, timeout: 60_000 });
  } catch (err) {
    const { stderr } = err as { stderr?: string };
    throw new Error(`${command} failed (run scripts/install-auth-tools.sh if it is missing): ${stderr ?? err}`, {
      cause: err,
    });
  }
}

/** A temporary directory, removed when the test ends (or, from a hook, by the returned function). */
export async function keystoreDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'stratus-keystore-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export async function sharedKeystoreDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'stratus-keystore-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface MadeKeystore {
  path: string;
  /** The certificate of the key entry, PEM, as the tool exports it: its public key verifies what the key signs. */
  certificatePem: string;
}

/** `openssl pkcs12 -export` of a fresh RSA key and self-signed certificate; `legacy` uses SHA-1/3DES as before OpenSSL 3. */
export async function opensslPkcs12(
  dir: string,
  options: {
    alias: string;
    password: string;
    bits?: number;
    algorithm?: 'rsa' | 'ec';
    legacy?: boolean;
    file?: string;
  },
): Promise<MadeKeystore> {
  const file = options.file ?? 'keystore.p12';
  const keyArgs =
    options.algorithm === 'ec'
      ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']
      : ['-newkey', `rsa:${options.bits ?? 2048}`];
  await tool(
    'openssl',
    [
      'req',
      '-x509',
      ...keyArgs,
      '-nodes',
      '-keyout',
      `${file}.key.pem`,
      '-out',
      `${file}.cert.pem`,
      '-subj',
      '/CN=stratus',
      '-days',
      '2',
    ],
    dir,
  );
  const legacy = options.legacy ? ['-keypbe', 'PBE-SHA1-3DES', '-certpbe', 'PBE-SHA1-3DES', '-macalg', 'sha1'] : [];
  await tool(
    'openssl',
    [
      'pkcs12',
      '-export',
      '-inkey',
      `${file}.key.pem`,
      '-in',
      `${file}.cert.pem`,
      '-name',
      options.alias,
      '-passout',
      `pass:${options.password}`,
      ...legacy,
      '-out',
      file,
    ],
    dir,
  );
  return { path: join(dir, file), certificatePem: await readFile(join(dir, `${file}.cert.pem`), 'utf8') };
}

/**
 * A keystore written by keytool (JKS or its own PKCS12) holding the key of an openssl-made PKCS#12 file under
 * `alias`: keytool converts it (`-importkeystore`), so the file is in keytool's format, while the RSA key is made
 * by openssl, which is much faster than keytool's own generation. Called again with another source, it adds an entry.
 */
export async function keytoolKeystore(
  dir: string,
  source: MadeKeystore & { alias: string; password: string },
  options: { alias: string; storePassword: string; keyPassword?: string; storeType: 'JKS' | 'PKCS12'; file?: string },
): Promise<MadeKeystore> {
  const file = options.file ?? (options.storeType === 'JKS' ? 'keystore.jks' : 'keystore.p12');
  await tool(
    'keytool',
    [
      // A quicker JVM start: these runs are short.
      '-J-XX:TieredStopAtLevel=1',
      '-J-XX:+UseSerialGC',
      '-importkeystore',
      '-noprompt',
      '-srckeystore',
      source.path,
      '-srcstoretype',
      'PKCS12',
      '-srcstorepass',
      source.password,
      '-srcalias',
      source.alias,
      '-destalias',
      options.alias,
      '-destkeystore',
      file,
      '-deststoretype',
      options.storeType,
      '-deststorepass',
      options.storePassword,
      ...(options.keyPassword ? ['-destkeypass', options.keyPassword] : []),
    ],
    dir,
  );
  return { path: join(dir, file), certificatePem: source.certificatePem };
}
