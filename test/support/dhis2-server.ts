/**
 * A DHIS2-compatible server for the tests of exports: the real API's URL layout, bodies, import summaries and task
 * polling for aggregate data values (`/api/dataValueSets`, `/api/system/tasks`, `/api/system/taskSummaries`) and
 * for events of tracker programs (`/api/tracker`, `/api/tracker/jobs`, `/api/tracker/events`), with
 * basic or personal-access-token authentication and the faults a delivery must survive. It keeps its values in
 * memory and counts every time a value is applied, so a test can tell a value delivered twice from one delivered
 * once.
 *
 * Run on its own (`node test/support/dhis2-server.ts --port 8089`) it is the target of the embedded demo's export.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseArgs } from 'node:util';
import type { TrackerEvent } from '../../core/exports/dhis2-client.ts';

/**
 * What happens to one import request: `status-503` answers before importing (nothing applied), `slow` imports,
 * then answers after `slowMs`, `drop-after-apply` imports and closes the connection without an answer,
 * `drop-before-apply` closes it without importing.
 */
export type ImportFault = 'status-503' | 'slow' | 'drop-after-apply' | 'drop-before-apply';

export interface Dhis2Value {
  dataElement: string;
  period: string;
  orgUnit: string;
  categoryOptionCombo?: string;
  attributeOptionCombo?: string;
  value: string;
}

export interface ImportRequest {
  dryRun: boolean;
  async: boolean;
  strategy: string;
  /** Aggregate values; for a tracker import, its events' data values with the event's org unit. */
  values: Dhis2Value[];
  /** The events of a tracker import. */
  events?: TrackerEvent[];
  /** Whether the import was carried out (a fault may stop it before). */
  applied: boolean;
}

export interface Dhis2Server {
  url: string;
  /** Stored values by key (`dataElement|period|orgUnit|coc|aoc`). */
  values: Map<string, Dhis2Value>;
  /**
   * How many times each key was written (created or updated) or deleted by an import that was applied; for events,
   * each data value, keyed `event|dataElement`.
   */
  writes: Map<string, number>;
  /** Stored events of tracker programs by uid. */
  events: Map<string, TrackerEvent>;
  /** Every import request, in arrival order. */
  imports: ImportRequest[];
  /** Faults for the next import requests, one each, in order. */
  fail(...faults: ImportFault[]): void;
  /** How long a `slow` fault holds its answer; a test may change it between deliveries. */
  slowMs: number;
  /** A fault for every import request from now on (undefined: none), after the queued ones. */
  failEvery(choose: ((n: number) => ImportFault | undefined) | undefined): void;
  close(): Promise<void>;
}

export interface Dhis2ServerOptions {
  /** `Basic` credentials, or a personal access token (`d2pat_...`) sent as `ApiToken`. */
  auth?: { user: string; password: string } | { token: string };
  /** Org units and data elements the server knows; a value naming another is a conflict. Absent: all known. */
  orgUnits?: string[];
  dataElements?: string[];
  /** Event programs and their stage (program uid to stage uid); an event of another is refused. */
  programs?: Record<string, string>;
  /** How long a `slow` fault holds its answer. */
  slowMs?: number;
  /** How many task polls an asynchronous import stays running for. */
  taskPolls?: number;
  port?: number;
  /** The address it listens on (default 127.0.0.1): the test node's Pods reach the machine at its bridge address. */
  host?: string;
}

const DEFAULT_COC = 'HllvX50cXC0';

export const valueKey = (v: Omit<Dhis2Value, 'value'>) =>
  [
    v.dataElement,
    v.period,
    v.orgUnit,
    v.categoryOptionCombo ?? DEFAULT_COC,
    v.attributeOptionCombo ?? DEFAULT_COC,
  ].join('|');

/** DHIS2's period ids of the types exports use: daily, ISO weekly, monthly, yearly. */
const PERIOD = /^(\d{8}|\d{4}W\d{1,2}|\d{6}|\d{4})$/;

interface ImportSummary {
  responseType: 'ImportSummary';
  status: 'SUCCESS' | 'WARNING' | 'ERROR';
  importOptions: { dryRun: boolean; async: boolean; importStrategy: string };
  description?: string;
  importCount: { imported: number; updated: number; ignored: number; deleted: number };
  conflicts: { object: string; objects: Record<string, string>; value: string; errorCode: string; indexes: number[] }[];
  dataSetComplete: 'false';
}

const webMessage = (httpStatusCode: number, message: string, response?: unknown) => ({
  httpStatus: httpStatusCode === 200 ? 'OK' : httpStatusCode === 409 ? 'Conflict' : 'Error',
  httpStatusCode,
  status: httpStatusCode === 200 ? 'OK' : httpStatusCode === 409 ? 'WARNING' : 'ERROR',
  message,
  ...(response !== undefined && { response }),
});

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startDhis2Server(options: Dhis2ServerOptions = {}): Promise<Dhis2Server> {
  const values = new Map<string, Dhis2Value>();
  const events = new Map<string, TrackerEvent>();
  const trackerJobs = new Map<string, { polls: number; report: unknown }>();
  const writes = new Map<string, number>();
  const imports: ImportRequest[] = [];
  const queued: ImportFault[] = [];
  let every: ((n: number) => ImportFault | undefined) | undefined;
  const tasks = new Map<string, { polls: number; summary: ImportSummary; created: string }>();
  const sockets = new Set<Socket>();
  const orgUnits = options.orgUnits && new Set(options.orgUnits);
  const dataElements = options.dataElements && new Set(options.dataElements);

  const authorized = (req: IncomingMessage) => {
    const auth = options.auth;
    if (!auth) return true;
    const expected =
      'token' in auth
        ? `ApiToken ${auth.token}`
        : `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
    return req.headers.authorization === expected;
  };

  function conflictsOf(list: Dhis2Value[]): ImportSummary['conflicts'] {
    const conflicts: ImportSummary['conflicts'] = [];
    const add = (object: string, property: string, value: string, errorCode: string, index: number) => {
      const existing = conflicts.find((c) => c.object === object && c.errorCode === errorCode);
      if (existing) existing.indexes.push(index);
      else conflicts.push({ object, objects: { [property]: object }, value, errorCode, indexes: [index] });
    };
    list.forEach((v, i) => {
      if (dataElements && !dataElements.has(v.dataElement))
        add(v.dataElement, 'dataElement', 'Data element not found or not accessible', 'E7610', i);
      else if (orgUnits && !orgUnits.has(v.orgUnit))
        add(v.orgUnit, 'orgUnit', 'Org unit not found or not accessible', 'E7612', i);
      else if (!PERIOD.test(v.period)) add(v.period, 'period', 'Period not valid', 'E7600', i);
      else if (v.value !== undefined && v.value !== '' && !Number.isFinite(Number(v.value)))
        add(v.value, 'value', 'Value must be a number', 'E7619', i);
    });
    return conflicts;
  }

  /** Imports the values (unless a dry run) and says what it did, as DHIS2's ImportSummary does. */
  function importValues(list: Dhis2Value[], dryRun: boolean, strategy: string, async: boolean): ImportSummary {
    const conflicts = conflictsOf(list);
    const rejected = new Set(conflicts.flatMap((c) => c.indexes));
    const count = { imported: 0, updated: 0, ignored: 0, deleted: 0 };
    list.forEach((v, i) => {
      const key = valueKey(v);
      const stored = values.get(key);
      if (rejected.has(i)) count.ignored++;
      else if (strategy === 'DELETE') {
        if (!stored) return void count.ignored++;
        count.deleted++;
        if (!dryRun) values.delete(key);
      } else if (stored?.value === v.value) count.ignored++;
      else {
        if (stored) count.updated++;
        else count.imported++;
        if (!dryRun) values.set(key, { ...v });
      }
      if (!dryRun && !rejected.has(i) && (strategy === 'DELETE' ? stored : stored?.value !== v.value))
        writes.set(key, (writes.get(key) ?? 0) + 1);
    });
    return {
      responseType: 'ImportSummary',
      status:
        conflicts.length === 0 ? 'SUCCESS' : count.imported + count.updated + count.deleted > 0 ? 'WARNING' : 'ERROR',
      importOptions: { dryRun, async, importStrategy: strategy },
      description:
        conflicts.length === 0 ? 'Import process completed successfully' : 'Import process completed with conflicts',
      importCount: count,
      conflicts,
      dataSetComplete: 'false',
    };
  }

  const json = (res: ServerResponse, status: number, payload: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' }).end(JSON.stringify(payload));

  /**
   * Imports through the fault queued for this request: answers or drops it before importing, or imports and then
   * drops it or holds the answer. Undefined when the request was answered or dropped here.
   */
  async function withFault<T>(
    req: IncomingMessage,
    res: ServerResponse,
    request: ImportRequest,
    apply: () => T,
  ): Promise<T | undefined> {
    imports.push(request);
    const fault = queued.shift() ?? every?.(imports.length);
    if (fault === 'status-503') return void json(res, 503, webMessage(503, 'Service temporarily unavailable'));
    if (fault === 'drop-before-apply') return void req.socket.destroy();
    const result = apply();
    request.applied = true;
    if (fault === 'drop-after-apply') return void req.socket.destroy();
    if (fault === 'slow') await new Promise((resolve) => setTimeout(resolve, handle.slowMs));
    return result;
  }

  async function postDataValueSets(req: IncomingMessage, res: ServerResponse, url: URL) {
    const text = await body(req);
    let list: Dhis2Value[];
    try {
      const parsed = JSON.parse(text) as { dataValues?: Dhis2Value[] };
      if (!Array.isArray(parsed.dataValues)) throw new Error('dataValues is not an array');
      list = parsed.dataValues.map((v) => ({ ...v, value: v.value === undefined ? '' : String(v.value) }));
    } catch (err) {
      return json(res, 400, webMessage(400, `Invalid JSON payload: ${(err as Error).message}`));
    }
    const dryRun = url.searchParams.get('dryRun') === 'true';
    const async = url.searchParams.get('async') === 'true';
    const strategy = url.searchParams.get('importStrategy') ?? 'CREATE_AND_UPDATE';
    const request: ImportRequest = { dryRun, async, strategy, values: list, applied: false };
    const summary = await withFault(req, res, request, () => importValues(list, dryRun, strategy, async));
    if (!summary) return;
    if (async) {
      const id = randomUUID().replace(/-/g, '').slice(0, 11);
      tasks.set(id, { polls: options.taskPolls ?? 2, summary, created: new Date().toISOString() });
      return json(
        res,
        200,
        webMessage(200, 'Initiated DATAVALUE_IMPORT', {
          responseType: 'JobConfigurationWebMessageResponse',
          name: 'DATAVALUE_IMPORT',
          id,
          created: tasks.get(id)!.created,
          jobType: 'DATAVALUE_IMPORT',
          relativeNotifierEndpoint: `/api/system/tasks/DATAVALUE_IMPORT/${id}`,
        }),
      );
    }
    const status = summary.conflicts.length > 0 ? 409 : 200;
    return json(
      res,
      status,
      webMessage(
        status,
        status === 200 ? 'Import was successful.' : 'One more conflicts encountered, please check import summary.',
        summary,
      ),
    );
  }

  function getDataValueSets(res: ServerResponse, url: URL) {
    const want = (name: string) => {
      const all = url.searchParams.getAll(name).flatMap((v) => v.split(','));
      return all.length > 0 ? new Set(all) : undefined;
    };
    const [des, pes, ous] = [want('dataElement'), want('period'), want('orgUnit')];
    if (!des || !pes || !ous)
      return json(res, 409, webMessage(409, 'At least one data element, period and org unit must be specified'));
    const dataValues = [...values.values()].filter(
      (v) => des.has(v.dataElement) && pes.has(v.period) && ous.has(v.orgUnit),
    );
    return json(res, 200, { dataValues });
  }

  function getTask(res: ServerResponse, id: string, summary: boolean) {
    const task = tasks.get(id);
    if (!task) return json(res, 404, webMessage(404, `Task ${id} not found`));
    if (summary) return json(res, 200, task.polls <= 0 ? task.summary : {});
    task.polls--;
    const done = task.polls < 0;
    const entry = (message: string, completed: boolean) => ({
      uid: randomUUID().slice(0, 11),
      level: 'INFO',
      category: 'DATAVALUE_IMPORT',
      time: new Date().toISOString(),
      message,
      completed,
    });
    return json(
      res,
      200,
      done
        ? [entry('Import done', true), entry('Importing data values', false)]
        : [entry('Importing data values', false)],
    );
  }

  /** A tracker import report as DHIS2 2.41 writes it: status, stats and the validation report's errors. */
  function importEvents(list: TrackerEvent[], dryRun: boolean) {
    const errorReports: { message: string; errorCode: string; trackerType: string; uid: string }[] = [];
    const stats = { created: 0, updated: 0, deleted: 0, ignored: 0, total: list.length };
    for (const e of list) {
      const refuse = (errorCode: string, message: string) => {
        errorReports.push({ message, errorCode, trackerType: 'EVENT', uid: e.event });
        stats.ignored++;
      };
      if (options.programs && options.programs[e.program] === undefined)
        refuse('E1069', `Could not find Program: \`${e.program}\`, linked to Event.`);
      else if (options.programs && options.programs[e.program] !== e.programStage)
        refuse('E1013', `Could not find ProgramStage: \`${e.programStage}\`, linked to Event.`);
      else if (orgUnits && !orgUnits.has(e.orgUnit))
        refuse('E1011', `Could not find OrganisationUnit: \`${e.orgUnit}\`.`);
      else if (dataElements && e.dataValues.some((d) => !dataElements.has(d.dataElement)))
        refuse('E1304', 'Data element is not valid.');
      else {
        const stored = events.get(e.event);
        if (stored) stats.updated++;
        else stats.created++;
        if (dryRun) continue;
        // Data values merge into the event's: an update names the ones it changes.
        const merged = new Map((stored?.dataValues ?? []).map((d) => [d.dataElement, d.value]));
        for (const d of e.dataValues) {
          if (merged.get(d.dataElement) !== String(d.value)) {
            const key = `${e.event}|${d.dataElement}`;
            writes.set(key, (writes.get(key) ?? 0) + 1);
          }
          merged.set(d.dataElement, String(d.value));
        }
        events.set(e.event, { ...e, dataValues: [...merged].map(([dataElement, value]) => ({ dataElement, value })) });
      }
    }
    return {
      status: errorReports.length === 0 ? 'OK' : stats.created + stats.updated > 0 ? 'WARNING' : 'ERROR',
      validationReport: { errorReports, warningReports: [] },
      stats,
    };
  }

  async function postTracker(req: IncomingMessage, res: ServerResponse, url: URL) {
    let list: TrackerEvent[];
    try {
      const parsed = JSON.parse(await body(req)) as { events?: TrackerEvent[] };
      if (!Array.isArray(parsed.events)) throw new Error('events is not an array');
      list = parsed.events;
    } catch (err) {
      return json(res, 400, webMessage(400, `Invalid JSON payload: ${(err as Error).message}`));
    }
    const dryRun = url.searchParams.get('importMode') === 'VALIDATE';
    const async = url.searchParams.get('async') !== 'false';
    const request: ImportRequest = {
      dryRun,
      async,
      strategy: url.searchParams.get('importStrategy') ?? 'CREATE_AND_UPDATE',
      values: list.flatMap((e) =>
        e.dataValues.map((d) => ({
          dataElement: d.dataElement,
          period: e.occurredAt,
          orgUnit: e.orgUnit,
          value: String(d.value),
        })),
      ),
      events: list,
      applied: false,
    };
    const report = await withFault(req, res, request, () => importEvents(list, dryRun));
    if (!report) return;
    if (async) {
      const id = randomUUID().replace(/-/g, '').slice(0, 11);
      trackerJobs.set(id, { polls: options.taskPolls ?? 2, report });
      return json(
        res,
        200,
        webMessage(200, 'Tracker job added', { id, location: `${server_url()}/api/tracker/jobs/${id}` }),
      );
    }
    return json(res, report.status === 'ERROR' ? 409 : 200, report);
  }

  function getTrackerJob(res: ServerResponse, id: string, report: boolean) {
    const job = trackerJobs.get(id);
    if (!job) return json(res, 404, webMessage(404, `Job ${id} not found`));
    if (report) return job.polls < 0 ? json(res, 200, job.report) : json(res, 404, webMessage(404, 'Not done'));
    job.polls--;
    const entry = (message: string, completed: boolean) => ({
      uid: randomUUID().slice(0, 11),
      level: 'INFO',
      category: 'TRACKER_IMPORT_JOB',
      time: new Date().toISOString(),
      message,
      completed,
    });
    return json(res, 200, job.polls < 0 ? [entry('Import complete', true)] : [entry('Importing', false)]);
  }

  function getEvents(res: ServerResponse, url: URL) {
    const wanted = url.searchParams
      .getAll('events')
      .flatMap((v) => v.split(/[,;]/))
      .filter(Boolean);
    if (wanted.length === 0) return json(res, 409, webMessage(409, 'Name the events'));
    const instances = wanted.flatMap((uid) => (events.has(uid) ? [events.get(uid)!] : []));
    return json(res, 200, { page: 1, pageSize: instances.length, instances });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!authorized(req)) return json(res, 401, webMessage(401, 'Unauthorized'));
    const path = url.pathname.replace(/\.json$/, '');
    void (async () => {
      if (path === '/api/dataValueSets' && req.method === 'POST') return postDataValueSets(req, res, url);
      if (path === '/api/dataValueSets' && req.method === 'GET') return getDataValueSets(res, url);
      const task = /^\/api\/system\/(tasks|taskSummaries)\/DATAVALUE_IMPORT\/([A-Za-z0-9]+)$/.exec(path);
      if (task && req.method === 'GET') return getTask(res, task[2]!, task[1] === 'taskSummaries');
      if (path === '/api/tracker' && req.method === 'POST') return postTracker(req, res, url);
      if (path === '/api/tracker/events' && req.method === 'GET') return getEvents(res, url);
      const job = /^\/api\/tracker\/jobs\/([A-Za-z0-9]+)(\/report)?$/.exec(path);
      if (job && req.method === 'GET') return getTrackerJob(res, job[1]!, job[2] !== undefined);
      if (path === '/api/system/info') return json(res, 200, { version: '2.41.0', contextPath: server_url() });
      json(res, 404, webMessage(404, `No endpoint ${req.method} ${url.pathname}`));
    })().catch((err: unknown) => json(res, 500, webMessage(500, String(err))));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const server_url = () => `http://${host}:${(server.address() as AddressInfo).port}`;
  const handle: Dhis2Server = {
    url: server_url(),
    slowMs: options.slowMs ?? 2_000,
    values,
    writes,
    events,
    imports,
    fail: (...faults) => void queued.push(...faults),
    failEvery: (choose) => void (every = choose),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return handle;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8089' },
      host: { type: 'string' },
      user: { type: 'string' },
      password: { type: 'string' },
    },
  });
  const { user, password } = values;
  const server = await startDhis2Server({
    port: Number(values.port),
    ...(values.host && { host: values.host }),
    ...(user && password && { auth: { user, password } }),
  });
  console.log(`DHIS2-compatible test server at ${server.url}`);
}
