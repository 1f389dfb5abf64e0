import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'core/**/*.test.ts',
      'operator/**/*.test.ts',
      'api-server/**/*.test.ts',
      'cmd/**/*.test.ts',
      'scripts/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
