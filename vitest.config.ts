import { configDefaults, defineConfig } from 'vitest/config';
import { TestLogsReporter } from './test/support/test-logs.ts';

/** Tests that need the real API server (scripts/kube-test-cluster.sh) are named `*.kube.test.ts`. */
const kubeTests = '**/*.kube.test.ts';
/**
 * Tests that need Pods to run on a real node (scripts/kube-node.sh) are named `*.kube-node.test.ts`. The node
 * needs root (containerd, runc, a bridge and network namespaces), so they run when the tests run as root, or when
 * STRATUS_KUBE_NODE=1 (where they then fail rather than hide); STRATUS_KUBE_NODE=0 leaves them out.
 */
const kubeNodeTests = '**/*.kube-node.test.ts';
const withNode =
  process.env.STRATUS_KUBE_NODE === '1' || (process.env.STRATUS_KUBE_NODE !== '0' && process.getuid?.() === 0);
/**
 * Tests that time the server under test (a p99 of `/health` beside a heavy graph, a drain bound, the CPU of refused
 * sign-ins): they run after the others, one file at a time, so that what they measure is the server under test and
 * not the test files around it on a 2-core machine.
 */
const timingTests = [
  'api-server/routes/openeo/result-isolation.test.ts',
  'test/fuzz/array-graphs.test.ts',
  'cmd/shutdown.test.ts',
  'api-server/routes/login/sign-in-timing.test.ts',
];
const kubeNodeProject = {
  extends: true,
  test: {
    name: 'kube-node',
    // A group of its own, one file at a time: the faults it times (a leader's handover, a probe's restart) are the
    // node's, not the load of the other projects on a 2-core machine.
    sequence: { groupOrder: 2 },
    fileParallelism: false,
    include: [kubeNodeTests],
    exclude: [...configDefaults.exclude, '.tools/**'],
    globalSetup: ['test/support/kube-node.global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
};

export default defineConfig({
  test: {
    testTimeout: 20_000,
    pool: 'forks',
    // Server logs go to one file per test file, kept and named when the file fails (test/support/test-logs.ts).
    setupFiles: ['test/support/test-logs.setup.ts'],
    reporters: ['default', new TestLogsReporter()],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'core/**/*.test.ts',
            'operator/**/*.test.ts',
            'api-server/**/*.test.ts',
            'cmd/**/*.test.ts',
            'scripts/**/*.test.ts',
            'bench/**/*.test.ts',
            'test/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, kubeTests, kubeNodeTests, ...timingTests],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'kube',
          include: [kubeTests],
          exclude: [...configDefaults.exclude, '.tools/**'],
          globalSetup: ['test/support/kube-cluster.global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: timingTests,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      ...(withNode ? [kubeNodeProject] : []),
    ],
  },
});
