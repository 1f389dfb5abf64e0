import { closeSync, existsSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * An append-only log file that rolls by size: `x.log` becomes `x.log.1`, `x.log.1` becomes `x.log.2`, and so on
 * up to `maxArchives`; with 0 archives the file starts over. Writes are synchronous so a line is on disk (in the
 * page cache) before the next one and the size check is exact.
 */
export class RollingFile {
  readonly path: string;
  readonly #limit: number;
  readonly #maxArchives: number;
  #fd: number;
  #size: number;

  constructor(path: string, limitBytes: number, maxArchives: number) {
    this.path = path;
    this.#limit = limitBytes;
    this.#maxArchives = maxArchives;
    mkdirSync(dirname(path), { recursive: true });
    this.#fd = openSync(path, 'a');
    this.#size = fstatSync(this.#fd).size;
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.#size > 0 && this.#size + bytes > this.#limit) this.#roll();
    writeSync(this.#fd, line);
    this.#size += bytes;
  }

  #roll(): void {
    closeSync(this.#fd);
    if (this.#maxArchives === 0) {
      this.#fd = openSync(this.path, 'w');
    } else {
      rmSync(`${this.path}.${this.#maxArchives}`, { force: true });
      for (let n = this.#maxArchives - 1; n >= 1; n--) {
        if (existsSync(`${this.path}.${n}`)) renameSync(`${this.path}.${n}`, `${this.path}.${n + 1}`);
      }
      renameSync(this.path, `${this.path}.1`);
      this.#fd = openSync(this.path, 'a');
    }
    this.#size = 0;
  }

  close(): void {
    closeSync(this.#fd);
  }
}
