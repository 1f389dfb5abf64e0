/**
 * The `stratus` command. `embedded` runs everything in one process (what `make run` starts); the operator,
 * API server and worker entry points for Kubernetes mode join here as they land.
 */
import { ConfigError } from '../core/config/index.ts';
import { ManifestError } from '../core/cluster/manifests.ts';
import { parseEmbeddedArgs, usage, UsageError } from './args.ts';
import { runEmbedded } from './embedded.ts';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'embedded') {
    console.error(command ? `unknown command "${command}"\n\n${usage}` : usage);
    return command === '-h' || command === '--help' ? 0 : 2;
  }
  const args = parseEmbeddedArgs(rest);
  if (args === 'help') {
    console.log(usage);
    return 0;
  }
  const running = await runEmbedded(args);
  const url = running.url.replace('127.0.0.1', 'localhost');
  console.log(`
Stratus is running (embedded mode)
  landing page   ${url}/
  API docs       ${url}/docs
  datasets       ${url}/datasets
  health         ${url}/health
  metrics        ${url}/metrics
  data directory ${args.dataDir}
Press Ctrl+C to stop.
`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.log(`\n${signal}: stopping`);
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  await running.stop();
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof ManifestError) {
    console.error(err.message);
    process.exitCode = 2;
  } else if (err instanceof TypeError && (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    console.error(`${err.message}\n\n${usage}`);
    process.exitCode = 2;
  } else {
    console.error(err);
    process.exitCode = 1;
  }
}
