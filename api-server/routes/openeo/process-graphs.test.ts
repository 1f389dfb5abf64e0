import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { workflowKind, type Workflow } from '../../../core/resources/workflow/schema.ts';
import { build } from '../../test/build.ts';
import { zodBytes } from '../../test/zod-bytes.ts';
import { userProcessesSchema } from './process-graphs.ts';

/** `x * factor + 1`: a user-defined process with two parameters, one with a default. */
const scaled = {
  summary: 'Scale and shift',
  parameters: [
    { name: 'x', description: 'A number.', schema: { type: 'number' } },
    { name: 'factor', description: 'The factor.', schema: { type: 'number' }, optional: true, default: 2 },
  ],
  returns: { schema: { type: 'number' } },
  process_graph: {
    m: { process_id: 'multiply', arguments: { x: { from_parameter: 'x' }, y: { from_parameter: 'factor' } } },
    a: { process_id: 'add', arguments: { x: { from_node: 'm' }, y: 1 }, result: true },
  },
};

describe('/process_graphs: user-defined processes as Workflow resources', () => {
  it('stores, lists, describes, runs and deletes a process', async () => {
    const { app, cluster } = await build();
    const put = await app.inject({ method: 'PUT', url: '/process_graphs/scale_shift', payload: scaled });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ id: 'scale_shift', summary: 'Scale and shift' });
    // The resource name is DNS-1123, and tells two ids that differ only by case apart.
    const { items } = await cluster.list<Workflow>(workflowKind, { namespace: 'default' });
    expect(items.map((w) => w.spec.id)).toEqual(['scale_shift']);
    expect(items[0]!.metadata.name).toMatch(/^scale-shift-[0-9a-f]{8}$/);

    const listed = await app.inject({ url: '/process_graphs' });
    // Compiled serializer: the bytes the zod serializer writes.
    expect(listed.body).toBe(zodBytes(userProcessesSchema, listed.body));
    const list = listed.json();
    expect(list).toEqual({
      processes: [
        { id: 'scale_shift', summary: 'Scale and shift', parameters: scaled.parameters, returns: scaled.returns },
      ],
      links: [],
    });
    expect((await app.inject({ url: '/process_graphs/scale_shift' })).json()).toEqual({ id: 'scale_shift', ...scaled });

    const run = (graph: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: '/result', payload: { process: { process_graph: graph } } });
    const viaUser = await run({
      u: { process_id: 'scale_shift', namespace: 'user', arguments: { x: 20 }, result: true },
    });
    expect(viaUser.json()).toBe(41);
    const withFactor = await run({ u: { process_id: 'scale_shift', arguments: { x: 20, factor: 3 }, result: true } });
    expect(withFactor.json()).toBe(61);

    // Replacing keeps one resource.
    const replaced = await app.inject({
      method: 'PUT',
      url: '/process_graphs/scale_shift',
      payload: { ...scaled, summary: 'Scaled' },
    });
    expect(replaced.statusCode).toBe(200);
    expect((await cluster.list<Workflow>(workflowKind, { namespace: 'default' })).items).toHaveLength(1);

    expect((await app.inject({ method: 'DELETE', url: '/process_graphs/scale_shift' })).statusCode).toBe(204);
    const gone = await app.inject({ url: '/process_graphs/scale_shift' });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({
      id: 'ProcessGraphNotFound',
      code: 'ProcessGraphNotFound',
      message: "User-defined process 'scale_shift' does not exist.",
      links: [],
    });
    expect((await app.inject({ method: 'DELETE', url: '/process_graphs/scale_shift' })).statusCode).toBe(404);
    const missing = await run({
      u: { process_id: 'scale_shift', namespace: 'user', arguments: { x: 1 }, result: true },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'ProcessUnsupported' });
  });

  it('finds a process applied as a Workflow by hand, whatever its resource is called', async () => {
    const { app, cluster } = await build();
    await cluster.create(workflowKind, {
      apiVersion: API_VERSION,
      kind: 'Workflow',
      metadata: { name: 'from-git', namespace: 'default' },
      spec: { id: 'ScaleShift', processGraph: scaled.process_graph, parameters: scaled.parameters },
    });
    expect((await app.inject({ url: '/process_graphs/ScaleShift' })).json()).toMatchObject({ id: 'ScaleShift' });
    const put = await app.inject({ method: 'PUT', url: '/process_graphs/ScaleShift', payload: scaled });
    expect(put.statusCode).toBe(200);
    const { items } = await cluster.list<Workflow>(workflowKind, { namespace: 'default' });
    expect(items.map((w) => w.metadata.name)).toEqual(['from-git']);
  });

  it('checks a process before storing it, with openEO error bodies', async () => {
    const { app, cluster } = await build();
    const put = (id: string, body: unknown) =>
      app.inject({ method: 'PUT', url: `/process_graphs/${id}`, payload: body as Record<string, unknown> });
    const cases: [string, unknown, number, string][] = [
      ['sum', scaled, 400, 'PredefinedProcessExists'],
      ['a-b', scaled, 400, 'ProcessGraphInvalid'],
      ['other', { ...scaled, id: 'mine' }, 400, 'ProcessGraphInvalid'],
      ['mine', { summary: 'no graph' }, 400, 'ProcessGraphMissing'],
      [
        'mine',
        { process_graph: { x: { process_id: 'no_such', arguments: {}, result: true } } },
        400,
        'ProcessUnsupported',
      ],
      // `factor` is used but not declared.
      ['mine', { ...scaled, parameters: [scaled.parameters[0]] }, 400, 'ProcessParameterMissing'],
    ];
    for (const [id, body, status, code] of cases) {
      const answer = await put(id, body);
      expect([id, answer.statusCode, answer.json().code]).toEqual([id, status, code]);
    }
    expect((await cluster.list(workflowKind, { namespace: 'default' })).items).toEqual([]);
  });

  it('refuses to store or delete on a read-only instance, and still lists', async () => {
    const { app } = await build('read_only = on');
    expect((await app.inject({ method: 'PUT', url: '/process_graphs/x', payload: scaled })).statusCode).toBe(403);
    expect((await app.inject({ method: 'DELETE', url: '/process_graphs/x' })).statusCode).toBe(403);
    expect((await app.inject({ url: '/process_graphs' })).json()).toEqual({ processes: [], links: [] });
  });
});
