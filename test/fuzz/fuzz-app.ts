import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { build, type Built } from '../../api-server/test/build.ts';

/** The app the fuzz suites send to: the authorization server on (its routes are fuzzed too), one data source. */
export async function buildFuzzApp(): Promise<Built> {
  const built = await build(
    [
      'instance.name = Fuzz',
      'instance.bbox = -13.5,6.9,-10.2,10.0',
      'server.base.url = http://127.0.0.1:8000',
      'oauth2.server.enabled = on',
    ].join('\n'),
  );
  await built.cluster.create(dataSourceKind, {
    apiVersion: API_VERSION,
    kind: 'DataSource',
    metadata: { name: 'sample', namespace: 'default' },
    spec: { datasetName: 'Sample', itemType: 'coverage', periodType: 'daily', provider: { name: 'sample' } },
  });
  return built;
}
