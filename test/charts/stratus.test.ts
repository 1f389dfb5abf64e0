import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { loadCrds, stratusCrdsDir } from '../support/kube-crds.ts';
import { runTool } from '../../scripts/kube-cli.ts';
import { chartDir, chartValueFiles, renderChart } from '../support/stratus-chart.ts';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
type Role = KubeObject & { rules: Rule[] };
interface PodSpec {
  securityContext: Record<string, unknown>;
  containers: { name: string; securityContext: Record<string, unknown> }[];
}

interface ServiceMonitorSpec {
  selector: { matchLabels: Record<string, string> };
  namespaceSelector: { matchNames: string[] };
  endpoints: { port: string; path: string; interval: string }[];
}
interface ServiceSpec {
  selector: Record<string, string>;
  ports: { name: string; targetPort: string }[];
}
interface DeploymentSpec {
  template: { metadata: { labels: Record<string, string> }; spec: { containers: { ports: { name: string }[] }[] } };
}

const named = (objects: KubeObject[], kind: string) => objects.filter((o) => o.kind === kind);
const matches = (labels: Record<string, string> | undefined, selector: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);
const builtInSourcesDir = join(import.meta.dirname, '../../manifests/data-sources');
interface Container {
  env: { name: string; value?: string }[];
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
type Deployment = KubeObject<{
  template: {
    spec: { containers: Container[]; volumes: Record<string, unknown>[]; securityContext?: Record<string, unknown> };
  };
}>;

const operatorOf = (objects: KubeObject[]) =>
  named(objects, 'Deployment').find((d) => d.metadata.name === 'stratus-operator') as Deployment;
const envOf = (deployment: Deployment) =>
  Object.fromEntries(deployment.spec!.template.spec.containers[0]!.env.map((e) => [e.name, e.value]));
const valueFiles = await chartValueFiles();

describe('Helm chart charts/stratus', () => {
  it.each(valueFiles.map((file) => [file ? basename(file) : 'default values', file]))(
    'passes helm lint --strict with %s',
    async (_name, file) => {
      const result = await runTool('helm', ['lint', '--strict', chartDir, ...(file ? ['--values', file] : [])]);
      expect(result.stdout + result.stderr).toContain('0 chart(s) failed');
      expect(result.code).toBe(0);
    },
  );

  it('lets the operator and the API server reach every kind in crds/', async () => {
    const plurals = (await loadCrds(stratusCrdsDir))
      .map((crd) => (crd.spec as { names: { plural: string } }).names.plural)
      .sort();
    const roles = named(await renderChart(), 'ClusterRole') as Role[];
    for (const component of ['operator', 'api-server']) {
      const role = roles.find((r) => r.metadata.name === `stratus-${component}`)!;
      const stratusRule = role.rules.find((r) => r.apiGroups.includes('climate.stratus.dev'))!;
      expect([...stratusRule.resources].sort()).toEqual(plurals);
    }
  });

  it('lets only the operator write status, and only the operator hold the leader-election Lease', async () => {
    const objects = await renderChart();
    const rulesOf = (kind: string, name: string) =>
      (objects.find((o) => o.kind === kind && o.metadata.name === name) as Role).rules;
    const writesStatus = (rules: Rule[]) => rules.some((r) => r.resources.includes('*/status'));
    expect(writesStatus(rulesOf('ClusterRole', 'stratus-operator'))).toBe(true);
    expect(writesStatus(rulesOf('ClusterRole', 'stratus-api-server'))).toBe(false);
    expect(rulesOf('Role', 'stratus-operator-leader-election')).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
    ]);
  });

  it('binds Roles in each watched namespace instead of ClusterRoles in a namespaced install', async () => {
    const objects = await renderChart({ set: ['watchNamespaces={team-a,team-b}'] });
    const clusterRoles = named(objects, 'ClusterRole').map((r) => r.metadata.name);
    expect(clusterRoles.sort()).toEqual(['stratus-edit', 'stratus-view']);
    expect(named(objects, 'ClusterRoleBinding')).toEqual([]);
    const roleBindings = named(objects, 'RoleBinding').map((b) => `${b.metadata.namespace}/${b.metadata.name}`);
    expect(roleBindings.sort()).toEqual([
      'stratus/stratus-api-server-settings',
      'stratus/stratus-operator-jobs',
      'stratus/stratus-operator-leader-election',
      'team-a/stratus-api-server',
      'team-a/stratus-operator',
      'team-a/stratus-worker',
      'team-b/stratus-api-server',
      'team-b/stratus-operator',
      'team-b/stratus-worker',
    ]);
    expect(envOf(operatorOf(objects)).WATCH_NAMESPACE).toBe('team-a,team-b');
  });

  it.each([
    ['a cluster-wide', [], 'ClusterRole'],
    ['a namespaced', ['watchNamespaces={team-a}'], 'Role'],
  ])('in %s install, lets the operator run Jobs in the release namespace only, and workers patch run status', async (_mode, set, kind) => {
    const objects = await renderChart({ set });
    const role = (k: string, name: string) => objects.find((o) => o.kind === k && o.metadata.name === name) as Role;
    expect(role('Role', 'stratus-operator-jobs')).toMatchObject({
      metadata: { namespace: 'stratus' },
      rules: [
        { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      ],
    });
    expect(role(kind, 'stratus-operator').rules.some((r) => r.apiGroups.includes('batch'))).toBe(false);
    expect(role(kind, 'stratus-worker').rules).toEqual([
      {
        apiGroups: ['climate.stratus.dev'],
        resources: ['ingestions/status', 'processingjobs/status', 'deliveries/status', 'analyticstables/status'],
        verbs: ['patch'],
      },
    ]);
    const binding = objects.find((o) => o.kind === `${kind}Binding` && o.metadata.name === 'stratus-worker');
    expect(binding).toMatchObject({ subjects: [{ kind: 'ServiceAccount', name: 'stratus-worker', namespace: 'stratus' }] });
  });

  it('tells the operator how to make worker Jobs and mounts the store read-only in its pod', async () => {
    const operator = operatorOf(await renderChart());
    expect(envOf(operator)).toMatchObject({
      STRATUS_WORKER_IMAGE: 'stratus:0.1.0',
      STRATUS_WORKER_IMAGE_PULL_POLICY: 'IfNotPresent',
      STRATUS_STORE_CLAIM: 'stratus-store',
      STRATUS_WORKER_SERVICE_ACCOUNT: 'stratus-worker',
      STRATUS_WORKER_ACTIVE_DEADLINE_SECONDS: '21600',
      STRATUS_WORKER_TTL_SECONDS_AFTER_FINISHED: '3600',
      STRATUS_WORKER_SUCCESSFUL_JOBS_HISTORY_LIMIT: '1',
      STRATUS_WORKER_FAILED_JOBS_HISTORY_LIMIT: '3',
      STRATUS_WORKER_PERIODS_PER_PART: '366',
      STRATUS_WORKER_MAX_PARTS: '8',
      STRATUS_WORKER_PART_PARALLELISM: '4',
    });
    expect(JSON.parse(envOf(operator).STRATUS_WORKER_RESOURCES!)).toEqual({
      requests: { cpu: '250m', memory: '512Mi' },
      limits: { memory: '2Gi' },
    });
    const pod = operator.spec!.template.spec;
    expect(pod.containers[0]!.volumeMounts).toContainEqual({ name: 'store', mountPath: '/var/lib/stratus', readOnly: true });
    // Read-only by the mount's flag: the same volume's logs/ subPath is the one writable mount.
    expect(pod.containers[0]!.volumeMounts!.filter((m) => m.name === 'store' && !m.readOnly)).toEqual([
      { name: 'store', mountPath: '/var/lib/stratus/logs', subPath: 'logs' },
    ]);

    // The workers run as the chart's pods do, so that each writes what the other wrote on the store.
    expect(JSON.parse(envOf(operator).STRATUS_WORKER_POD_SECURITY_CONTEXT!)).toEqual(pod.securityContext);
    expect(pod.securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532 });

    const custom = operatorOf(
      await renderChart({
        set: ['store.existingClaim=shared', 'worker.image.repository=registry/worker', 'worker.image.pullPolicy=Always'],
      }),
    );
    expect(envOf(custom)).toMatchObject({
      STRATUS_WORKER_IMAGE: 'registry/worker:0.1.0',
      STRATUS_WORKER_IMAGE_PULL_POLICY: 'Always',
      STRATUS_STORE_CLAIM: 'shared',
    });
  });

  it('gives both components a startup probe and a liveness probe that a loaded node does not fail', async () => {
    const objects = await renderChart();
    type Probe = { httpGet: { path: string }; periodSeconds: number; timeoutSeconds: number; failureThreshold: number };
    type Probes = { startupProbe?: Probe; livenessProbe?: Probe; readinessProbe?: Probe };
    const deployments = named(objects, 'Deployment') as KubeObject<{ template: { spec: { containers: Probes[] } } }>[];
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['stratus-api-server', 'stratus-operator']);
    const patience = (probe: Probe) => probe.periodSeconds * probe.failureThreshold;
    for (const deployment of deployments) {
      const { startupProbe, livenessProbe, readinessProbe } = deployment.spec!.template.spec.containers[0]!;
      // Liveness only starts once the startup probe answered, so a slow start is never a restart.
      expect(startupProbe?.httpGet.path).toBe('/healthz');
      expect(patience(startupProbe!)).toBeGreaterThanOrEqual(300);
      // A healthy process whose answer takes seconds on an oversubscribed CPU is not restarted.
      expect(livenessProbe?.httpGet.path).toBe('/healthz');
      expect(livenessProbe!.timeoutSeconds).toBeGreaterThanOrEqual(10);
      expect(patience(livenessProbe!)).toBeGreaterThanOrEqual(120);
      // Readiness takes a pod out of its Service sooner than liveness restarts it.
      expect(readinessProbe?.httpGet.path).toBe('/readyz');
      expect(patience(readinessProbe!)).toBeLessThan(patience(livenessProbe!));
    }
    await expect(renderChart({ set: ['probes.liveness.timeoutSeconds=0'] })).rejects.toThrow(/minimum/);
  });

  it('lets the operator and the API server write the log files in the store’s logs/ directory, and only there', async () => {
    for (const name of ['stratus-operator', 'stratus-api-server']) {
      const deployment = named(await renderChart(), 'Deployment').find((d) => d.metadata.name === name) as Deployment;
      const pod = deployment.spec!.template.spec;
      const mounts = pod.containers[0]!.volumeMounts;
      expect(mounts).toContainEqual({ name: 'store', mountPath: '/var/lib/stratus', readOnly: true });
      // STRATUS_HOME is /var/lib/stratus (Dockerfile): its logs/ is this writable mount of the same claim.
      expect(mounts).toContainEqual({ name: 'store', mountPath: '/var/lib/stratus/logs', subPath: 'logs' });
      // The claim is one volume: kube-scheduler 1.20 leaves a Pod listing a WaitForFirstConsumer claim twice Pending.
      expect(pod.volumes!.filter((v) => v.persistentVolumeClaim)).toEqual([
        { name: 'store', persistentVolumeClaim: { claimName: 'stratus-store' } },
      ]);
      expect(envOf(deployment)).not.toHaveProperty('STRATUS_LOG_CONFIG');
    }
  });

  it('mounts a logConfig as the STRATUS_LOG_CONFIG file of both components', async () => {
    const logConfig = { level: 'debug', transport: { target: 'pino/file', options: { destination: 1 } } };
    const objects = await renderChart({ set: [`logConfig.level=debug`, 'logConfig.transport.target=pino/file', 'logConfig.transport.options.destination=1'] });
    const configMap = named(objects, 'ConfigMap').find((c) => c.metadata.name === 'stratus-config') as KubeObject & {
      data: Record<string, string>;
    };
    expect(JSON.parse(configMap.data['log-config.json']!)).toEqual(logConfig);
    for (const name of ['stratus-operator', 'stratus-api-server']) {
      const deployment = named(objects, 'Deployment').find((d) => d.metadata.name === name) as Deployment;
      expect(envOf(deployment).STRATUS_LOG_CONFIG).toBe('/etc/stratus/log-config.json');
    }
  });

  it('creates the first admin from a Secret and mounts a keystore Secret for the API server, only when asked', async () => {
    const apiServerOf = (objects: KubeObject[]) =>
      named(objects, 'Deployment').find((d) => d.metadata.name === 'stratus-api-server') as Deployment;
    const container = (deployment: Deployment) =>
      deployment.spec!.template.spec.containers[0]! as Container & {
        env: { name: string; value?: string; valueFrom?: unknown }[];
      };
    const plain = apiServerOf(await renderChart());
    expect(container(plain).env.map((e) => e.name)).not.toContain('STRATUS_FIRST_ADMIN_PASSWORD');
    expect(plain.spec!.template.spec.volumes.map((v) => v.name)).not.toContain('keystore');

    const objects = await renderChart({ valuesFile: join(chartDir, 'ci/auth-values.yaml') });
    const withAuth = apiServerOf(objects);
    expect(container(withAuth).env).toEqual(
      expect.arrayContaining([
        { name: 'STRATUS_FIRST_ADMIN_USERNAME', value: 'admin' },
        {
          name: 'STRATUS_FIRST_ADMIN_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'stratus-first-admin', key: 'password' } },
        },
      ]),
    );
    expect(container(withAuth).volumeMounts).toContainEqual({
      name: 'keystore',
      mountPath: '/etc/stratus/keystore',
      readOnly: true,
    });
    expect(withAuth.spec!.template.spec.volumes).toContainEqual({
      name: 'keystore',
      secret: { secretName: 'stratus-keystore' },
    });
    const properties = (named(objects, 'ConfigMap')[0]!.data as Record<string, string>)['stratus.properties'];
    expect(properties).toContain('oauth2.server.jwt.keystore.path = /etc/stratus/keystore/keystore.p12');
  });

  it('gives the worker ServiceAccount the image pull Secrets, since the Jobs name none', async () => {
    const objects = await renderChart({ set: ['imagePullSecrets[0].name=pull'] });
    const worker = objects.find((o) => o.kind === 'ServiceAccount' && o.metadata.name === 'stratus-worker');
    expect(worker).toMatchObject({ metadata: { namespace: 'stratus' }, imagePullSecrets: [{ name: 'pull' }] });
  });

  it.each(valueFiles.map((file) => [file ? basename(file) : 'default values', file]))(
    'runs every container non-root, without privilege escalation or capabilities, on a read-only root (%s)',
    async (_name, file) => {
      const deployments = named(await renderChart({ valuesFile: file }), 'Deployment');
      expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['stratus-api-server', 'stratus-operator']);
      for (const deployment of deployments) {
        const pod = (deployment.spec as { template: { spec: PodSpec } }).template.spec;
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
        for (const container of pod.containers) {
          expect(container.securityContext).toEqual({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          });
        }
      }
    },
  );

  it('renders the disruption budget as policy/v1beta1 for Kubernetes 1.20 and policy/v1 from 1.21', async () => {
    const pdb = async (kubeVersion: string) =>
      named(await renderChart({ kubeVersion }), 'PodDisruptionBudget').map((o) => o.apiVersion);
    expect(await pdb('1.20.2')).toEqual(['policy/v1beta1']);
    expect(await pdb('1.21.0')).toEqual(['policy/v1']);
  });

  it('installs the built-in DataSources in default, or in each watched namespace, unless turned off', async () => {
    const files = (await readdir(builtInSourcesDir)).filter((f) => f.endsWith('.yaml'));
    const builtIns = await Promise.all(
      files.map(async (f) => parse(await readFile(join(builtInSourcesDir, f), 'utf8')) as KubeObject),
    );
    const where = (objects: KubeObject[]) =>
      named(objects, 'DataSource')
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
        .sort();
    const names = builtIns.map((s) => s.metadata.name);
    const rendered = named(await renderChart(), 'DataSource');
    expect(where(rendered)).toEqual(names.map((n) => `default/${n}`).sort());
    for (const source of builtIns) {
      expect(rendered.find((o) => o.metadata.name === source.metadata.name)?.spec).toEqual(source.spec);
    }
    expect(where(await renderChart({ set: ['watchNamespaces={team-a,team-b}'] }))).toEqual(
      ['team-a', 'team-b'].flatMap((ns) => names.map((n) => `${ns}/${n}`)).sort(),
    );
    expect(where(await renderChart({ set: ['dataSources.enabled=false'] }))).toEqual([]);
  });

  it('renders no ServiceMonitor by default', async () => {
    const objects = await renderChart();
    expect(objects.filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'))).toEqual([]);
  });

  it('scrapes /metrics of every operator and API server pod through a ServiceMonitor when enabled', async () => {
    const objects = await renderChart({ valuesFile: join(chartDir, 'ci', 'monitoring-values.yaml') });
    const monitors = named(objects, 'ServiceMonitor');
    expect(monitors.map((m) => `${m.apiVersion} ${m.metadata.name}`).sort()).toEqual([
      'monitoring.coreos.com/v1 stratus-api-server',
      'monitoring.coreos.com/v1 stratus-operator',
    ]);
    for (const monitor of monitors) {
      expect(monitor.metadata.labels?.release).toBe('kube-prometheus-stack');
      const spec = monitor.spec as ServiceMonitorSpec;
      expect(spec.namespaceSelector.matchNames).toEqual(['stratus']);
      // The Prometheus Operator finds Services by label, then their port by name; the port must lead to a
      // container port of the component's pods.
      const services = named(objects, 'Service').filter((s) => matches(s.metadata.labels, spec.selector.matchLabels));
      expect(services, monitor.metadata.name).toHaveLength(1);
      const service = services[0]!.spec as ServiceSpec;
      const [endpoint] = spec.endpoints;
      expect(endpoint).toEqual({ port: expect.any(String), path: '/metrics', interval: '15s' });
      const targetPort = service.ports.find((p) => p.name === endpoint!.port)?.targetPort;
      const pods = named(objects, 'Deployment')
        .map((d) => (d.spec as DeploymentSpec).template)
        .filter((t) => matches(t.metadata.labels, service.selector));
      expect(pods).toHaveLength(1);
      expect(pods[0]!.spec.containers.flatMap((c) => c.ports.map((p) => p.name))).toContain(targetPort);
    }
  });

  it('leaves the CRDs to crds/ by default, and renders the same CRDs, kept on uninstall, with crds.templated', async () => {
    expect(named(await renderChart(), 'CustomResourceDefinition')).toEqual([]);
    const generated = await loadCrds(stratusCrdsDir);
    const templated = named(await renderChart({ set: ['crds.templated=true'] }), 'CustomResourceDefinition');
    expect(templated.map((crd) => crd.metadata.name).sort()).toEqual(generated.map((crd) => crd.metadata.name).sort());
    for (const crd of templated) {
      const source = generated.find((g) => g.metadata.name === crd.metadata.name)!;
      expect(crd.spec, crd.metadata.name).toEqual(source.spec);
      expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      expect(crd.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    }
    const deletable = named(
      await renderChart({ set: ['crds.templated=true', 'crds.keep=false'] }),
      'CustomResourceDefinition',
    );
    expect(deletable).toHaveLength(generated.length);
    for (const crd of deletable) expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBeUndefined();
  });

  it('refuses values the schema does not allow', async () => {
    await expect(renderChart({ set: ['operator.replicas=0'] })).rejects.toThrow(/minimum/);
    await expect(renderChart({ set: ['operatr.replicas=1'] })).rejects.toThrow(/additional properties 'operatr'/);
    await expect(renderChart({ set: ['worker.failedJobsHistoryLimit=-1'] })).rejects.toThrow(/minimum/);
  });
});
