/**
 * The `stratus` command. `embedded` runs everything in one process (what `make run` starts); `operator` and
 * `api-server` are Kubernetes mode's two Deployments, configured by their environment (docs/kubernetes.md).
 */
import { ConfigError } from '../core/config/index.ts';
import { PasswordResetError } from '../core/auth/users/reset-password.ts';
import { StoreInUseError } from '../core/cluster/embedded/index.ts';
import { ManifestError } from '../core/cluster/manifests.ts';
import { runKubernetesApiServer } from './api-server.ts';
import { parseEmbeddedArgs, parseResetAdminArgs, usage, UsageError } from './args.ts';
import { runEmbedded } from './embedded.ts';
import { resetAdminPassword } from './reset-admin-password.ts';
import { StartupRefusal } from './startup-checks.ts';
import { apiServerEnv, SettingError, operatorEnv } from './kubernetes-env.ts';
import { runKubernetesOperator } from './operator.ts';

/** Resolves with the name of the signal that asked the process to stop. */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

/**
 * How long past what its stop should take (`stopTakesMs`) a process waits before it exits anyway, with status 1. A
 * second signal exits at once.
 */
const STOP_MARGIN_MS = 5_000;

/**
 * Longest the operator's stop may take: below the 30 s grace period Kubernetes gives a pod (the chart's default), so
 * the process ends on its own terms rather than by SIGKILL.
 */
const OPERATOR_STOP_MS = 25_000;

/** Stops a running component, giving up after `deadlineMs`. */
async function stopWithin(running: { stop(): Promise<void> }, deadlineMs: number): Promise<void> {
  const giveUp = (why: string) => () => {
    console.error(`${why}: exiting before the stop completed`);
    process.exit(1);
  };
  const timer = setTimeout(giveUp(`stopping took over ${deadlineMs / 1000} s`), deadlineMs);
  process.once('SIGINT', giveUp('SIGINT again'));
  process.once('SIGTERM', giveUp('SIGTERM again'));
  await running.stop();
  clearTimeout(timer);
}

/** The operator runs until a signal stops it (0) or it loses leadership (1: the pod restarts as a candidate). */
async function operator(): Promise<number> {
  const running = await runKubernetesOperator(operatorEnv(process.env));
  console.log(`Stratus operator: probes and metrics on ${running.url}`);
  const why = await Promise.race([stopSignal(), running.lost.then(() => 'leadership lost')]);
  console.log(`${why}: stopping`);
  await stopWithin(running, OPERATOR_STOP_MS);
  return why === 'leadership lost' ? 1 : 0;
}

async function apiServer(): Promise<number> {
  const running = await runKubernetesApiServer(apiServerEnv(process.env));
  console.log(`Stratus API server on ${running.url}`);
  console.log(`${await stopSignal()}: stopping`);
  await stopWithin(running, running.stopTakesMs + STOP_MARGIN_MS);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'operator') return operator();
  if (command === 'api-server') return apiServer();
  if (command === 'reset-admin-password') {
    const args = parseResetAdminArgs(rest);
    console.log(args === 'help' ? usage : await resetAdminPassword(args));
    return 0;
  }
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
  const admin = running.firstAdmin;
  // The password exists nowhere else (only its hash is stored): it is shown this once.
  const adminLines = admin?.password
    ? `
  first admin    ${admin.username} / ${admin.password}  (shown once: note it now)
  sign in        ${url}/login`
    : admin
      ? `
  sign in        ${url}/login
  lost password  stop, then make reset-admin-password (DATA_DIR=${args.dataDir})`
      : '';
  const banner = `
Stratus is running (embedded mode)
  landing page   ${url}/
  API docs       ${url}/docs
  datasets       ${url}/datasets
  health         ${url}/health
  metrics        ${url}/metrics
  data directory ${args.dataDir}${adminLines}
Press Ctrl+C to stop; kill -USR2 ${process.pid} prints this again.
`;
  console.log(banner);
  // The run's log lines soon scroll the banner (and the first admin's password) out of sight.
  process.on('SIGUSR2', () => console.log(banner));
  console.log(`\n${await stopSignal()}: stopping`);
  await stopWithin(running, running.stopTakesMs + STOP_MARGIN_MS);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
  // Everything Stratus opened is closed (servers, watches, workers, log files), but a library may still hold the
  // event loop open (the Icechunk module's WASI worker keeps a MessagePort after a snapshot was read): end here.
  process.exit();
} catch (err) {
  if (
    err instanceof UsageError ||
    err instanceof ConfigError ||
    err instanceof ManifestError ||
    err instanceof SettingError ||
    err instanceof StartupRefusal ||
    err instanceof PasswordResetError
  ) {
    console.error(err.message);
    process.exitCode = 2;
  } else if (err instanceof StoreInUseError) {
    console.error(err.message);
    process.exitCode = 1;
  } else if (err instanceof TypeError && (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    console.error(`${err.message}\n\n${usage}`);
    process.exitCode = 2;
  } else {
    console.error(err);
    process.exitCode = 1;
  }
}
