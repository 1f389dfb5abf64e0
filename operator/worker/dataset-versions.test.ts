import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storeFile, thumbnailPath, thumbnailsDir, versionDir, versionsDir } from '../../core/stores/layout.ts';
import { removeDatasetVersions } from './dataset-versions.ts';
import type { TaskContext } from './protocol.ts';

let root: string;
afterEach(() => rm(root, { recursive: true, force: true }));

describe('the remove-dataset-versions task', () => {
  it('removes the directories and thumbnails of the versions it names, and nothing else', async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-versions-'));
    for (const version of ['v1', 'v2', 'v3']) {
      await mkdir(join(versionDir(root, 'rain', version), 'value'), { recursive: true });
      await writeFile(join(versionDir(root, 'rain', version), 'value', '0.0.0'), version);
      await mkdir(thumbnailsDir(root, 'rain'), { recursive: true });
      await writeFile(storeFile(root, thumbnailPath('rain', version)), version);
    }
    const result = await removeDatasetVersions(
      { datasetId: 'rain', storageRoot: root, versions: ['v1', 'v2', 'gone'] },
      {} as TaskContext,
    );
    expect(result).toEqual({ removed: ['v1', 'v2', 'gone'] });
    expect(await readdir(versionsDir(root, 'rain'))).toEqual(['v3']);
    expect(await readdir(thumbnailsDir(root, 'rain'))).toEqual(['v3.png']);
  });

  it('refuses an input that names no version', async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-versions-'));
    await expect(
      removeDatasetVersions({ datasetId: 'rain', storageRoot: root, versions: [] }, {} as TaskContext),
    ).rejects.toThrow('invalid remove-dataset-versions input');
  });
});
