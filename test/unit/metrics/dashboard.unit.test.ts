import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { createMetrics } from '../../../adapters/metrics/registry.ts';
import { registerLogGauges } from '../../../adapters/metrics/log-gauges.ts';
import { registerWitnessMetrics } from '../../../adapters/metrics/witness-metrics.ts';

interface Panel {
  readonly title: string;
  readonly datasource: { readonly uid: string };
  readonly targets: readonly { readonly expr: string }[];
}

const dashboard = JSON.parse(readFileSync(new URL('../../../docker/grafana/custodian-dashboard.json', import.meta.url), 'utf8')) as {
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string }[] };
};

/** The service's custodian_ metric families, read from its registry (relay gauges and witness metrics included). */
const families = async () => {
  const metrics = createMetrics();
  registerLogGauges(metrics, { store: memoryEventStore(), checkpoints: () => ({}), relay: { topic: 't', position: () => 0 }, auditTreeSize: async () => 0 });
  registerWitnessMetrics(metrics, ['w']).cosigned('w', 1, Date.now());
  return (await metrics.registry.getMetricsAsJSON()).filter((m) => m.name.startsWith('custodian_'));
};

/** Every series name the service can export. */
const exported = async (): Promise<Set<string>> => {
  const names = new Set<string>();
  for (const m of await families()) {
    names.add(m.name);
    if (String(m.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(m.name + suffix);
  }
  return names;
};

const namesIn = (expr: string) => [...expr.matchAll(/\bcustodian_[a-z_]+/g)].map((m) => m[0]);

describe('the Grafana dashboard', () => {
  it('queries through its Prometheus datasource variable', () => {
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }));
    for (const panel of dashboard.panels) expect(panel.datasource.uid, panel.title).toBe('${datasource}');
  });

  it('names in every panel only metrics the service exports', async () => {
    const names = await exported();
    expect(dashboard.panels.length).toBeGreaterThan(0);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets) {
        expect(namesIn(expr).length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of namesIn(expr)) expect(names.has(name), `${panel.title}: ${name} is not exported`).toBe(true);
      }
    }
  });

  it('plots every custodian metric family the service exports', async () => {
    const plotted = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => namesIn(t.expr))).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    expect((await families()).map((m) => m.name).filter((name) => !plotted.has(name))).toEqual([]);
  });

  it('is the file docker-compose gives Grafana', () => {
    const compose = readFileSync(new URL('../../../docker-compose.yml', import.meta.url), 'utf8');
    expect(compose).toContain('./docker/grafana/custodian-dashboard.json:/var/lib/grafana/dashboards/custodian-dashboard.json');
    expect(readFileSync(new URL('../../../docker/grafana/provisioning/dashboards/custodian.yml', import.meta.url), 'utf8')).toContain(
      '/var/lib/grafana/dashboards',
    );
  });
});
