import { configDefaults, defineConfig } from 'vitest/config';
import { TestLogsReporter } from './test/support/test-logs.ts';

/** Tests that need the real API server (scripts/kube-test-cluster.sh) are named `*.kube.test.ts`. */
const kubeTests = '**/*.kube.test.ts';
/**
 * Tests that need Pods to run on a real node (scripts/kube-node.sh) are named `*.kube-node.test.ts`. Building
 * the node takes a kubelet build on first use, so they run only when STRATUS_KUBE_NODE=1.
 */
const kubeNodeTests = '**/*.kube-node.test.ts';
const kubeNodeProject = {
  extends: true,
  test: {
    name: 'kube-node',
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
            'test/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, kubeTests, kubeNodeTests],
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
        },
      },
      ...(process.env.STRATUS_KUBE_NODE === '1' ? [kubeNodeProject] : []),
    ],
  },
});
