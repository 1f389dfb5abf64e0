import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

export interface EmbeddedArgs {
  dataDir: string;
  manifests: string[];
  config?: string;
  host: string;
  port: number;
  /** How many processes serve the API (docs/adr/0010): this one, which owns the store, and `apiProcesses - 1` more. */
  apiProcesses?: number;
}

export const usage = `Usage: node cmd/stratus.ts embedded [options]

Runs the controllers, the job runner and the API server in one process over a file-backed store.

Options:
  --data-dir DIR     where resources and stores are kept (default: .data)
  --manifests DIR    apply the YAML resources in DIR at start, like kubectl apply -f DIR (repeatable)
  --config FILE      instance configuration properties file (default: $STRATUS_CONFIG, else config/stratus.properties when present)
  --host HOST        address to listen on (default: 127.0.0.1)
  --port PORT        port to listen on (default: 8000)
  --api-processes N  processes serving the API on that port, or "auto" for one per core (default: 1)
  -h, --help         show this help

Recovery: node cmd/stratus.ts reset-admin-password [--data-dir DIR] [--username NAME]
  gives the first admin (default: admin) of a stopped embedded store a new password and prints it once

Kubernetes mode: node cmd/stratus.ts operator | api-server
  configured by the environment (WATCH_NAMESPACE, STRATUS_CONFIG, ...: see docs/kubernetes.md)`;

export class UsageError extends Error {}

export function parseEmbeddedArgs(argv: string[]): EmbeddedArgs | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string', default: '.data' },
      manifests: { type: 'string', multiple: true, default: [] },
      config: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8000' },
      'api-processes': { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0..65535, got ${values.port}`);
  const apiProcesses = values['api-processes'] === 'auto' ? availableParallelism() : Number(values['api-processes']);
  if (!Number.isInteger(apiProcesses) || apiProcesses < 1 || apiProcesses > 64)
    throw new UsageError(`--api-processes must be 1..64 or auto, got ${values['api-processes']}`);
  return {
    dataDir: values['data-dir'],
    manifests: values.manifests,
    config: values.config,
    host: values.host,
    port,
    apiProcesses,
  };
}

export interface ResetAdminArgs {
  dataDir: string;
  username: string;
}

export function parseResetAdminArgs(argv: string[]): ResetAdminArgs | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string', default: '.data' },
      username: { type: 'string', default: 'admin' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  return values.help ? 'help' : { dataDir: values['data-dir'], username: values.username };
}
