import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Debian's Python, which has the independent readers (xarray, zarr, rioxarray, GDAL) that
 * `scripts/install-interop-tools.sh` installs; not whatever `python3` comes first on PATH.
 */
export const DEBIAN_PYTHON = '/usr/bin/python3';

/** Runs `script` with `args` (sys.argv[1:]) and parses the JSON it prints last. */
export async function python<T>(script: string, args: string[] = [], timeoutMs = 60_000): Promise<T> {
  try {
    const { stdout } = await run(DEBIAN_PYTHON, ['-c', script, ...args], {
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, PYTHONWARNINGS: 'ignore', GDAL_HTTP_MAX_RETRY: '0' },
    });
    const lines = stdout.trim().split('\n');
    return JSON.parse(lines[lines.length - 1]!) as T;
  } catch (err) {
    const { stderr } = err as { stderr?: string };
    throw new Error(
      `python failed (run scripts/install-interop-tools.sh if a module is missing): ${stderr?.slice(-2000) ?? err}`,
      { cause: err },
    );
  }
}
