import fp from 'fastify-plugin';
import { Runs } from './runs.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Starting runs and waiting for them (`runs.ts`). */
    runs: Runs;
  }
}

/** The runs of the instance's namespace, for the routes that start them. */
export const runsPlugin = fp(
  async (app) => {
    const { cluster, namespace } = app.stratus;
    app.decorate('runs', new Runs({ cluster, namespace }));
  },
  { name: 'stratus-runs', fastify: '5.x', dependencies: ['stratus-context'] },
);
