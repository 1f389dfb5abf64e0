import { describe, expect, it } from 'vitest';
import { renderReference } from './crd/reference.ts';
import { conditionSchema, type ConditionCatalogue } from './conditions.ts';
import { resourceKinds } from './registry.ts';

const catalogued = resourceKinds.filter((kind) => kind.conditions);

describe('the condition catalogues of the kinds', () => {
  it('exist for every kind a controller reconciles', () => {
    expect(catalogued.map((kind) => kind.kind)).toEqual([
      'DataSource',
      'Dataset',
      'Ingestion',
      'FeatureCollection',
      'Schedule',
      'ProcessingJob',
      'Delivery',
      'OAuth2Client',
      'AnalyticsTable',
    ]);
  });

  it.each(catalogued.map((kind) => [kind.kind, kind.conditions!] as const))(
    'of %s hold only reasons a KEP-1623 condition and an Event accept, each described',
    (_kind, catalogue: ConditionCatalogue) => {
      for (const [reason, entry] of [...Object.entries(catalogue.reasons), ...Object.entries(catalogue.events)]) {
        expect(conditionSchema.shape.reason.safeParse(reason).success, reason).toBe(true);
        expect(entry.description, reason).not.toBe('');
      }
    },
  );

  it('give a failed run its run error code as reason, Stalled', () => {
    const ingestion = resourceKinds.find((kind) => kind.kind === 'Ingestion')!.conditions!;
    expect(ingestion.reasons.UpstreamUnavailable).toMatchObject({ state: 'stalled' });
    expect(ingestion.events.InvalidRequest).toMatchObject({ type: 'Warning' });
    expect(ingestion.reasons.Retrying).toMatchObject({ state: 'progressing' });
  });

  it('are documented in the reference under their kind, a family of reasons with one meaning in one row', () => {
    const reference = renderReference(resourceKinds);
    const ingestion = reference.slice(reference.indexOf('## Ingestion'), reference.indexOf('## FeatureCollection'));
    expect(ingestion).toContain(
      '| `WaitingForWriter` | `Ready=Unknown`, `Reconciling=True` | An earlier run writes the same dataset or feature collection; this one starts after it. |',
    );
    expect(ingestion).toMatch(
      /\| `SourceNotFound`, `InvalidRequest`, .*`CredentialsAcrossNamespaces` \| `Ready=False`, `Stalled=True` \|/,
    );
    expect(ingestion).toContain('| `AttemptFailed` | Warning | An attempt failed and the run retries. |');
    const dataset = reference.slice(reference.indexOf('## Dataset'), reference.indexOf('## Ingestion'));
    expect(dataset).toContain('### condition reasons');
    expect(dataset).not.toContain('### event reasons');
  });
});
