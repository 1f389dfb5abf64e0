import fp from 'fastify-plugin';

export interface Endpoint {
  path: string;
  methods: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every documented route in openEO's `{param}` syntax, for the capabilities document. */
    endpoints: Endpoint[];
  }
}

/** Collects the documented routes as they are added; registered before every route area so that it sees them all. */
export const endpointsPlugin = fp(
  async (app) => {
    const endpoints: Endpoint[] = [];
    app.decorate('endpoints', endpoints);
    app.addHook('onRoute', (route) => {
      const hidden = (route.schema as { hide?: boolean } | undefined)?.hide;
      if (hidden || route.url.startsWith('/docs')) return;
      const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
        (m) => m !== 'HEAD' && m !== 'OPTIONS',
      );
      const known = endpoints.find((e) => e.path === path);
      if (known) known.methods.push(...methods.filter((m) => !known.methods.includes(m)));
      else if (methods.length > 0) endpoints.push({ path, methods: [...methods] });
    });
  },
  { name: 'stratus-endpoints', fastify: '5.x' },
);
