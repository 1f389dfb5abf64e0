/**
 * The node of scripts/kube-node.sh runs Pods: an image built here from Debian's busybox-static and imported
 * into containerd (nothing is pulled) is scheduled by kube-scheduler onto the node, a Job of it completes, its
 * log is read through the kubelet, a Pod lists Pods through its in-cluster config (the `kubernetes` Service's
 * address, which is the API server's own on the node's bridge) with its service account's token, and a Pod
 * serving HTTP answers on its bridge address and through `kubectl port-forward` (API server → kubelet →
 * containerd's stream server).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, symlink, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import { tool } from '../../scripts/kube-cli.ts';
import { eventually } from '../support/eventually.ts';
import { scratchNamespace } from '../support/kube-namespace.ts';
import { importImage, nodeClient, nodeContainer, timed } from '../support/kube-node-client.ts';

const run = promisify(execFile);
const scripts = join(import.meta.dirname, '../../scripts');
const image = 'localhost/stratus/busybox:test';
const nodeName = 'stratus-node';

const kubeconfig = inject('kubeconfig');
const clusterDir = inject('kubeClusterDir');
const cluster = openKubernetesCluster({ kubeconfig });
const namespace = scratchNamespace(cluster, 'node');

const { kubectl, apply, completedJob, allowPodList } = nodeClient(kubeconfig, namespace);

/** A one-layer image of Debian's static busybox with every applet linked, imported into the node. */
async function importBusyboxImage(): Promise<void> {
  await run('bash', [join(scripts, 'apt-install.sh'), "the node test's image", 'busybox-static']);
  await importImage(clusterDir, async (work) => {
    const bin = join(work, 'rootfs/bin');
    await mkdir(bin, { recursive: true });
    await mkdir(join(work, 'rootfs/tmp'));
    await copyFile('/bin/busybox', join(bin, 'busybox'));
    const { stdout } = await run('/bin/busybox', ['--list']);
    for (const applet of stdout.split('\n').filter((name) => name && name !== 'busybox')) {
      await symlink('busybox', join(bin, applet));
    }
    const archive = join(work, 'busybox.tar');
    await run('bash', [join(scripts, 'oci-image.sh'), image, join(work, 'rootfs'), archive, '/bin/sh']);
    return archive;
  });
}

const container = nodeContainer(image, { request: '16Mi', limit: '64Mi' });

interface PodView {
  spec: { nodeName?: string };
  status: { phase: string; podIP?: string };
}

async function pod(name: string): Promise<PodView> {
  return JSON.parse(await kubectl('get', 'pod', name, '-o', 'json')) as PodView;
}

describe('a real node', () => {
  beforeAll(() => timed('busybox image built and imported', importBusyboxImage));

  it('registers Ready and schedulable', async () => {
    const node = JSON.parse(await kubectl('get', 'node', nodeName, '-o', 'json')) as {
      spec: { unschedulable?: boolean; taints?: { effect: string }[] };
      status: {
        conditions: { type: string; status: string }[];
        nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string };
      };
    };
    expect(node.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.spec.unschedulable).toBeFalsy();
    expect(node.status.nodeInfo.kubeletVersion).toMatch(/^v1\.20\./);
    expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\/1\.6\./);
    // The node lifecycle controller lifts the not-ready taint the kubelet registers with.
    await eventually(
      async () => {
        const taints = JSON.parse(
          (await kubectl('get', 'node', nodeName, '-o', 'jsonpath={.spec.taints}')) || '[]',
        ) as {
          effect: string;
        }[];
        return taints.some((taint) => taint.effect === 'NoSchedule') ? undefined : true;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  });

  it('completes a Job whose Pod kube-scheduler placed on the node, and serves its log', async () => {
    const { podName, log } = await completedJob('hello', {
      ...container,
      name: 'hello',
      command: ['/bin/sh', '-c', 'echo "hello from $(hostname)"'],
    });
    expect((await pod(podName)).spec.nodeName).toBe(nodeName);
    const events = await kubectl(
      'get',
      'events',
      '--field-selector',
      `involvedObject.name=${podName},reason=Scheduled`,
      '-o',
      'jsonpath={.items[*].reportingComponent}',
    );
    expect(events).toBe('default-scheduler');
    expect(log).toBe(`hello from ${podName}\n`);
  });

  it("lets a Pod list through its in-cluster config (the kubernetes Service's address) with its token", async () => {
    await allowPodList();
    const account = '/var/run/secrets/kubernetes.io/serviceaccount';
    const { podName, log } = await completedJob('in-cluster', {
      ...container,
      name: 'list',
      command: [
        '/bin/sh',
        '-c',
        // busybox's wget notes on stderr that it verifies no certificate; the list alone is the log.
        `wget -q -O /tmp/pods --header "Authorization: Bearer $(cat ${account}/token)" ` +
          `"https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT/api/v1/namespaces/$(cat ${account}/namespace)/pods" ` +
          `2>/tmp/wget.err || { cat /tmp/wget.err; exit 1; }; cat /tmp/pods`,
      ],
    });
    const listed = JSON.parse(log) as { kind: string; items: { metadata: { name: string } }[] };
    expect(listed.kind).toBe('PodList');
    expect(listed.items.map((item) => item.metadata.name)).toContain(podName);
  });

  describe('a Pod serving HTTP', () => {
    const body = 'served from the node\n';
    let podIP = '';
    beforeAll(async () => {
      await apply({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web' },
        spec: {
          containers: [
            {
              ...container,
              name: 'web',
              command: [
                '/bin/sh',
                '-c',
                `mkdir -p /tmp/www && printf '${body.replace('\n', '\\n')}' >/tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www`,
              ],
              ports: [{ containerPort: 8080 }],
              readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
            },
          ],
        },
      });
      await timed('web Pod Ready', () => kubectl('wait', '--for=condition=ready', '--timeout=90s', 'pod/web'));
      podIP = (await pod('web')).status.podIP ?? '';
    });

    it('answers on its address on the node bridge', async () => {
      expect(podIP).toMatch(/^10\.244\.0\./);
      const response = await fetch(`http://${podIP}:8080/index.html`);
      expect(await response.text()).toBe(body);
    });

    it('answers through kubectl port-forward', async () => {
      const forward = spawn(
        await tool('kubectl'),
        ['--kubeconfig', kubeconfig, '-n', namespace, 'port-forward', 'pod/web', ':8080'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      try {
        const port = await timed(
          'port-forward listening',
          () =>
            new Promise<number>((resolve, reject) => {
              let output = '';
              forward.stdout.on('data', (chunk: Buffer) => {
                output += chunk.toString();
                const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(output);
                if (match) resolve(Number(match[1]));
              });
              forward.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
              forward.on('exit', () => reject(new Error(`kubectl port-forward exited: ${output}`)));
            }),
        );
        const response = await fetch(`http://127.0.0.1:${port}/index.html`);
        expect(await response.text()).toBe(body);
      } finally {
        forward.kill();
      }
    });
  });
});
