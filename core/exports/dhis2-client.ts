/**
 * The few calls a delivery makes to a DHIS2-compatible server: import data values (`POST /api/dataValueSets`) or
 * events (`POST /api/tracker`), follow an asynchronous import (`/api/system/tasks` and `/api/system/taskSummaries`,
 * `/api/tracker/jobs`) and read values back (`GET /api/dataValueSets`, `GET /api/tracker/events`). Every answer is classified by what it says of the import: applied with a summary,
 * applied nothing (safe to send again), refused, or unknown (sent, without a definite answer: never sent again).
 *
 * Requests go over a connection of their own: a kept-alive socket the server closed between two requests would
 * fail a POST in a way that cannot be told from a lost answer.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { DataValue } from './payload.ts';

export interface ImportSummary {
  status?: string;
  importCount: { imported: number; updated: number; ignored: number; deleted: number };
  conflicts: { object?: string; value?: string; errorCode?: string; indexes?: number[] }[];
}

export type ImportAnswer =
  | { kind: 'summary'; summary: ImportSummary }
  | { kind: 'task'; id: string }
  | { kind: 'not-applied'; message: string }
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'unknown'; message: string };

export interface Dhis2Target {
  url: string;
  /** The `Authorization` header: `Basic ...` or `ApiToken d2pat_...`. */
  authorization?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export function authorizationOf(credentials: {
  username?: string;
  password?: string;
  token?: string;
}): string | undefined {
  if (credentials.token) return `ApiToken ${credentials.token}`;
  if (credentials.username !== undefined && credentials.password !== undefined)
    return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  return undefined;
}

/** Thrown when no connection was made: nothing reached the server. */
class NotConnected extends Error {}

const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

interface Answer {
  status: number;
  body: unknown;
  text: string;
}

function call(target: Dhis2Target, method: string, path: string, body?: string): Promise<Answer> {
  const url = new URL(path.replace(/^\//, ''), target.url.endsWith('/') ? target.url : `${target.url}/`);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let connected = false;
    const req = send(url, {
      method,
      agent: false,
      timeout: target.timeoutMs,
      signal: target.signal,
      headers: {
        accept: 'application/json',
        ...(target.authorization && { authorization: target.authorization }),
        ...(body !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
      },
    });
    req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${target.timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(!connected && CONNECT_ERRORS.has(err.code ?? '') ? new NotConnected(err.message) : err),
    );
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, text });
      });
    });
    req.end(body);
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ImportSummary of an answer: DHIS2 2.38+ wraps it in a WebMessage's `response`, older versions do not. */
function summaryOf(body: unknown): ImportSummary | undefined {
  const candidate = isRecord(body) && isRecord(body.response) ? body.response : body;
  if (!isRecord(candidate) || !isRecord(candidate.importCount)) return undefined;
  const count = candidate.importCount as Record<string, unknown>;
  const n = (k: string) => (typeof count[k] === 'number' ? (count[k] as number) : 0);
  return {
    status: typeof candidate.status === 'string' ? candidate.status : undefined,
    importCount: { imported: n('imported'), updated: n('updated'), ignored: n('ignored'), deleted: n('deleted') },
    conflicts: Array.isArray(candidate.conflicts) ? (candidate.conflicts as ImportSummary['conflicts']) : [],
  };
}

const messageOf = (answer: Answer) =>
  isRecord(answer.body) && typeof answer.body.message === 'string' ? answer.body.message : answer.text.slice(0, 200);

/** Statuses a server or its proxy answers before importing anything. */
const NOT_APPLIED = new Set([429, 502, 503]);

/** Sends one import request and classifies its answer; `summarize` reads the protocol's summary from a body. */
async function postImport(
  target: Dhis2Target,
  path: string,
  body: unknown,
  summarize: (body: unknown) => ImportSummary | undefined,
): Promise<ImportAnswer> {
  let answer: Answer;
  try {
    answer = await call(target, 'POST', path, JSON.stringify(body));
  } catch (err) {
    if (err instanceof NotConnected) return { kind: 'not-applied', message: `cannot connect: ${err.message}` };
    return { kind: 'unknown', message: `sent, no answer: ${(err as Error).message}` };
  }
  const summary = summarize(answer.body);
  if (summary && (answer.status < 300 || answer.status === 409)) return { kind: 'summary', summary };
  const response = isRecord(answer.body) && isRecord(answer.body.response) ? answer.body.response : undefined;
  if (answer.status < 300 && typeof response?.id === 'string') return { kind: 'task', id: response.id };
  if (NOT_APPLIED.has(answer.status))
    return { kind: 'not-applied', message: `HTTP ${answer.status}: ${messageOf(answer)}` };
  if (answer.status >= 400 && answer.status < 500)
    return { kind: 'refused', status: answer.status, message: `HTTP ${answer.status}: ${messageOf(answer)}` };
  return { kind: 'unknown', message: `HTTP ${answer.status} without an import summary: ${messageOf(answer)}` };
}

export function importValues(
  target: Dhis2Target,
  values: DataValue[],
  options: { dryRun: boolean; async: boolean; strategy: 'CREATE_AND_UPDATE' | 'DELETE' },
): Promise<ImportAnswer> {
  const query = new URLSearchParams({
    dryRun: String(options.dryRun),
    async: String(options.async),
    importStrategy: options.strategy,
  });
  return postImport(target, `api/dataValueSets?${query}`, { dataValues: values }, summaryOf);
}

export interface TrackerEvent {
  event: string;
  program: string;
  programStage: string;
  orgUnit: string;
  occurredAt: string;
  status: 'COMPLETED';
  dataValues: { dataElement: string; value: string }[];
}

/**
 * A tracker import report (DHIS2 2.41: `stats` and `validationReport`) as an import summary: created events are
 * imported, and each refused event a conflict naming its uid (`object`), which the caller maps to its values.
 */
function trackerSummaryOf(body: unknown): ImportSummary | undefined {
  if (!isRecord(body) || !isRecord(body.stats)) return undefined;
  const stats = body.stats as Record<string, unknown>;
  const n = (k: string) => (typeof stats[k] === 'number' ? (stats[k] as number) : 0);
  const reports =
    isRecord(body.validationReport) && Array.isArray(body.validationReport.errorReports)
      ? body.validationReport.errorReports
      : [];
  return {
    status: typeof body.status === 'string' ? body.status : undefined,
    importCount: { imported: n('created'), updated: n('updated'), ignored: n('ignored'), deleted: n('deleted') },
    conflicts: (reports as Record<string, unknown>[]).map((r) => ({
      object: String(r.uid ?? ''),
      value: String(r.message ?? ''),
      ...(typeof r.errorCode === 'string' && { errorCode: r.errorCode }),
    })),
  };
}

/** Creates or updates events in one request; an event keeps the data values the request does not name. */
export function importEvents(
  target: Dhis2Target,
  events: TrackerEvent[],
  options: { dryRun: boolean; async: boolean },
): Promise<ImportAnswer> {
  const query = new URLSearchParams({
    async: String(options.async),
    importMode: options.dryRun ? 'VALIDATE' : 'COMMIT',
    importStrategy: 'CREATE_AND_UPDATE',
    // Valid events are imported when others of the request are refused, as aggregate imports do with values.
    atomicMode: 'OBJECT',
  });
  return postImport(target, `api/tracker?${query}`, { events }, trackerSummaryOf);
}

/**
 * The summary of an asynchronous import once its task completed; undefined while it runs. A server that cannot be
 * reached throws: the caller polls again.
 */
export async function importTaskSummary(
  target: Dhis2Target,
  id: string,
  protocol: 'aggregate' | 'tracker' = 'aggregate',
): Promise<ImportSummary | undefined> {
  const task = encodeURIComponent(id);
  const [notifier, report, summarize] =
    protocol === 'aggregate'
      ? [`api/system/tasks/DATAVALUE_IMPORT/${task}`, `api/system/taskSummaries/DATAVALUE_IMPORT/${task}`, summaryOf]
      : [`api/tracker/jobs/${task}`, `api/tracker/jobs/${task}/report`, trackerSummaryOf];
  const notifications = await call(target, 'GET', notifier);
  if (notifications.status !== 200)
    throw new Error(`task ${id}: HTTP ${notifications.status}: ${messageOf(notifications)}`);
  const completed =
    Array.isArray(notifications.body) && notifications.body.some((n) => isRecord(n) && n.completed === true);
  if (!completed) return undefined;
  const answer = await call(target, 'GET', report);
  const summary = answer.status === 200 ? summarize(answer.body) : undefined;
  if (!summary) throw new Error(`task ${id} completed without a summary: HTTP ${answer.status}`);
  return summary;
}

const authRefused = (answer: Answer) =>
  Object.assign(new Error(`the target refused the credentials (HTTP ${answer.status})`), { auth: true });

/** The data values of the events that exist among `uids`, by event uid and data element. */
export async function readEvents(target: Dhis2Target, uids: string[]): Promise<Map<string, Map<string, string>>> {
  const found = new Map<string, Map<string, string>>();
  for (let i = 0; i < uids.length; i += READ_BATCH) {
    const batch = uids.slice(i, i + READ_BATCH);
    const query = new URLSearchParams({
      events: batch.join(','),
      fields: 'event,dataValues[dataElement,value]',
      pageSize: String(batch.length),
    });
    const answer = await call(target, 'GET', `api/tracker/events?${query}`);
    if (answer.status === 401 || answer.status === 403) throw authRefused(answer);
    if (answer.status !== 200 || !isRecord(answer.body))
      throw new Error(`reading events: HTTP ${answer.status}: ${messageOf(answer)}`);
    // DHIS2 2.41 pages `instances`; earlier versions named them `events`.
    const list = answer.body.instances ?? answer.body.events ?? [];
    if (!Array.isArray(list)) throw new Error('reading events: not a list of events');
    for (const e of list as Record<string, unknown>[]) {
      const values = Array.isArray(e.dataValues) ? (e.dataValues as Record<string, unknown>[]) : [];
      found.set(String(e.event), new Map(values.map((d) => [String(d.dataElement), String(d.value ?? '')])));
    }
  }
  return found;
}

/** How many org units (or events) one read names, to keep its URL short. */
const READ_BATCH = 50;

/** The target's values for every combination of the data elements, periods and org units given. */
export async function readValues(
  target: Dhis2Target,
  scope: { dataElements: string[]; periods: string[]; orgUnits: string[] },
): Promise<DataValue[]> {
  const found: DataValue[] = [];
  for (let i = 0; i < scope.orgUnits.length; i += READ_BATCH) {
    const query = new URLSearchParams();
    for (const de of scope.dataElements) query.append('dataElement', de);
    for (const pe of scope.periods) query.append('period', pe);
    for (const ou of scope.orgUnits.slice(i, i + READ_BATCH)) query.append('orgUnit', ou);
    const answer = await call(target, 'GET', `api/dataValueSets?${query}`);
    if (answer.status === 401 || answer.status === 403) throw authRefused(answer);
    if (answer.status !== 200 || !isRecord(answer.body))
      throw new Error(`reading values: HTTP ${answer.status}: ${messageOf(answer)}`);
    const values = answer.body.dataValues;
    if (values !== undefined && !Array.isArray(values)) throw new Error('reading values: dataValues is not a list');
    for (const v of (values ?? []) as Record<string, unknown>[])
      found.push({
        dataElement: String(v.dataElement),
        period: String(v.period),
        orgUnit: String(v.orgUnit),
        ...(typeof v.categoryOptionCombo === 'string' && { categoryOptionCombo: v.categoryOptionCombo }),
        ...(typeof v.attributeOptionCombo === 'string' && { attributeOptionCombo: v.attributeOptionCombo }),
        value: String(v.value ?? ''),
      });
  }
  return found;
}
