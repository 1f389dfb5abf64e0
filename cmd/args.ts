import { parseArgs } from 'node:util';

export interface EmbeddedArgs {
  dataDir: string;
  manifests: string[];
  config?: string;
  host: string;
  port: number;
}

export const usage = `Usage: node cmd/stratus.ts embedded [options]

Runs the controllers, the job runner and the API server in one process over a file-backed store.

Options:
  --data-dir DIR     where resources and stores are kept (default: .data)
  --manifests DIR    apply the YAML resources in DIR at start, like kubectl apply -f DIR (repeatable)
  --config FILE      instance configuration properties file (default: $STRATUS_CONFIG, else config/stratus.properties when present)
  --host HOST        address to listen on (default: 127.0.0.1)
  --port PORT        port to listen on (default: 8000)
  -h, --help         show this help

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
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0..65535, got ${values.port}`);
  return {
    dataDir: values['data-dir'],
    manifests: values.manifests,
    config: values.config,
    host: values.host,
    port,
  };
}
