import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { workflowKind, type Workflow } from '../../../core/resources/workflow/schema.ts';
import { build, type Built } from '../../test/build.ts';
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

const putProcess = (app: Built['app'], id: string, body: Record<string, unknown>) =>
  app.inject({ method: 'PUT', url: `/process_graphs/${id}`, payload: body });

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

  it('replaces the whole process: nothing of the one stored before stays', async () => {
    const { app } = await build();
    expect((await putProcess(app, 'scale_shift', scaled)).statusCode).toBe(200);
    const replacement = { process_graph: { three: { process_id: 'add', arguments: { x: 1, y: 2 }, result: true } } };
    const second = await putProcess(app, 'scale_shift', replacement);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual({ id: 'scale_shift', ...replacement });
    expect((await app.inject({ url: '/process_graphs/scale_shift' })).json()).toEqual({
      id: 'scale_shift',
      ...replacement,
    });
    // One result node, so the process runs.
    const call = await app.inject({
      method: 'POST',
      url: '/result',
      payload: { process: { process_graph: { u: { process_id: 'scale_shift', arguments: {}, result: true } } } },
    });
    expect([call.statusCode, call.json()]).toEqual([200, 3]);
  });

  it('stores one of 20 concurrent PUTs of one id whole, round after round', async () => {
    const { app, cluster } = await build();
    const bodyOf = (round: number, writer: number) => ({
      summary: `round ${round}, writer ${writer}`,
      parameters: [{ name: `p${writer}`, description: 'A number.', schema: { type: 'number' } }],
      process_graph: {
        [`n${writer}`]: {
          process_id: 'add',
          arguments: { x: { from_parameter: `p${writer}` }, y: round },
          result: true,
        },
      },
    });
    for (let round = 0; round < 5; round++) {
      const bodies = Array.from({ length: 20 }, (_, writer) => bodyOf(round, writer));
      const answers = await Promise.all(bodies.map((body) => putProcess(app, 'contended', body)));
      expect(answers.map((a) => a.statusCode)).toEqual(bodies.map(() => 200));
      const stored = (await app.inject({ url: '/process_graphs/contended' })).json();
      expect(bodies.map((body) => ({ id: 'contended', ...body }))).toContainEqual(stored);
    }
    expect((await cluster.list(workflowKind, { namespace: 'default' })).items).toHaveLength(1);
  });

  it('keeps the name, labels and triggers of a Workflow applied by hand when a PUT replaces its process', async () => {
    const { app, cluster } = await build();
    const triggers = [{ event: 'dataset.updated' as const, dataset: 'sample' }];
    await cluster.create<Workflow>(workflowKind, {
      apiVersion: API_VERSION,
      kind: 'Workflow',
      metadata: { name: 'from-git', namespace: 'default', labels: { team: 'climate' } },
      spec: { id: 'ScaleShift', description: 'The old one.', processGraph: scaled.process_graph, triggers },
    });
    const { summary: _summary, ...withoutSummary } = scaled;
    expect((await putProcess(app, 'ScaleShift', withoutSummary)).statusCode).toBe(200);
    const [stored, ...others] = (await cluster.list<Workflow>(workflowKind, { namespace: 'default' })).items;
    expect(others).toEqual([]);
    expect(stored!.metadata).toMatchObject({ name: 'from-git', labels: { team: 'climate' } });
    expect(stored!.spec).toEqual({
      id: 'ScaleShift',
      parameters: scaled.parameters,
      returns: scaled.returns,
      processGraph: scaled.process_graph,
      triggers,
    });
  });

  it("refuses parameters and returns that do not fit openEO's schema with ProcessInvalid naming the member", async () => {
    const { app, cluster } = await build();
    const graph = { three: { process_id: 'add', arguments: { x: 1, y: 2 }, result: true } };
    const number = { name: 'x', description: 'A number.', schema: { type: 'number' } };
    const cases: [Record<string, unknown>, string][] = [
      [{ parameters: [null] }, 'parameters[0]'],
      [{ parameters: 'x' }, 'parameters'],
      [{ parameters: {} }, 'parameters'],
      [{ parameters: [1] }, 'parameters[0]'],
      [{ parameters: [{ name: 'x', description: 'A number.' }] }, 'parameters[0].schema'],
      [{ parameters: [{ name: 'x', schema: {} }] }, 'parameters[0].description'],
      [{ parameters: [{ ...number, name: 'a b' }] }, 'parameters[0].name'],
      [{ parameters: [number, number] }, 'parameters[1].name'],
      [{ parameters: [{ ...number, schema: [] }] }, 'parameters[0].schema'],
      [{ parameters: [{ ...number, schema: 'number' }] }, 'parameters[0].schema'],
      [{ parameters: [{ ...number, optional: 'yes' }] }, 'parameters[0].optional'],
      [{ parameters: [{ ...number, deprecated: 1 }] }, 'parameters[0].deprecated'],
      [{ returns: {} }, 'returns.schema'],
      [{ returns: 'x' }, 'returns'],
      [{ summary: 3 }, 'summary'],
    ];
    for (const [metadata, member] of cases) {
      const answer = await putProcess(app, 'mine', { ...metadata, process_graph: graph });
      expect([member, answer.statusCode, answer.json().code]).toEqual([member, 400, 'ProcessInvalid']);
      expect(answer.json().message).toContain(`Invalid process specified: ${member}: `);
    }
    expect((await cluster.list(workflowKind, { namespace: 'default' })).items).toEqual([]);
    // openEO's null says "not known", as the member's absence does.
    const unknown = await putProcess(app, 'mine', {
      id: null,
      summary: null,
      parameters: null,
      returns: null,
      process_graph: graph,
    });
    expect([unknown.statusCode, unknown.json()]).toEqual([200, { id: 'mine', process_graph: graph }]);
  });

  it('answers a call of a process stored with bad parameters with ProcessInvalid naming it, and still lists it', async () => {
    const { app, cluster } = await build();
    const graph = { three: { process_id: 'add', arguments: { x: 1, y: 2 }, result: true } };
    const stored: unknown[] = ['x', {}, [1], [null], [{ name: 'x' }]];
    for (const [index, parameters] of stored.entries()) {
      const id = `bad_${index}`;
      await cluster.create(workflowKind, {
        apiVersion: API_VERSION,
        kind: 'Workflow',
        metadata: { name: `bad-${index}`, namespace: 'default' },
        spec: { id, processGraph: graph, parameters },
      });
      const call = await app.inject({
        method: 'POST',
        url: '/result',
        payload: { process: { process_graph: { u: { process_id: id, arguments: {}, result: true } } } },
      });
      expect([id, call.statusCode, call.json().code]).toEqual([id, 400, 'ProcessInvalid']);
      expect(call.json().message).toContain(`User-defined process '${id}' is stored with invalid metadata`);
    }
    const listed = await app.inject({ url: '/process_graphs' });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().processes).toHaveLength(stored.length);
  });

  it('refuses to store or delete on a read-only instance, and still lists', async () => {
    const { app } = await build('read_only = on');
    expect((await app.inject({ method: 'PUT', url: '/process_graphs/x', payload: scaled })).statusCode).toBe(403);
    expect((await app.inject({ method: 'DELETE', url: '/process_graphs/x' })).statusCode).toBe(403);
    expect((await app.inject({ url: '/process_graphs' })).json()).toEqual({ processes: [], links: [] });
  });
});
