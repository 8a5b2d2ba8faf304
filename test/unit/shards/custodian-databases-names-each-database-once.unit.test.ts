import { describe, expect, it } from 'vitest';
import { cellPoolMax, parseDatabases } from '../../../adapters/shards/databases-env.ts';
import { mergeMetricTexts } from '../../../adapters/shards/metrics-merge.ts';

describe('CUSTODIAN_DATABASES', () => {
  it('names each tenant database as <name>=<postgres URL>, a URL keeping commas of its own', () => {
    expect(parseDatabases(undefined)).toEqual([]);
    expect(parseDatabases('  ')).toEqual([]);
    expect(parseDatabases('db1=postgres://u:p@h1:5432/c, db2=postgresql://h2/c?host=a,b')).toEqual([
      { name: 'db1', url: 'postgres://u:p@h1:5432/c' },
      { name: 'db2', url: 'postgresql://h2/c?host=a,b' },
    ]);
  });

  it('refuses a name twice, a bad name or a URL that is not PostgreSQL, saying what to change', () => {
    expect(() => parseDatabases('a=postgres://h/x,a=postgres://h/y')).toThrow(/a is named twice/);
    expect(() => parseDatabases('Big=postgres://h/x')).toThrow(/not <name>=<postgres URL>/);
    expect(() => parseDatabases('postgres://h/x')).toThrow(/not <name>=<postgres URL>/);
    expect(() => parseDatabases('a=mysql://h/x')).toThrow(/must start with postgres:\/\//);
  });

  it('shares one instance’s connection budget across its databases, never under 4 a database', () => {
    expect(cellPoolMax(20, 1)).toBe(20);
    expect(cellPoolMax(20, 3)).toBe(7);
    expect(cellPoolMax(20, 10)).toBe(4);
  });
});

describe('metrics of several databases', () => {
  it('keeps one HELP and TYPE per family and every database’s samples under it', () => {
    const one = '# HELP x_total X\n# TYPE x_total counter\nx_total{database="a"} 1\n# HELP y Y\n# TYPE y gauge\ny{database="a"} 2\n';
    const two = '# HELP x_total X\n# TYPE x_total counter\nx_total{database="b"} 3\n';
    expect(mergeMetricTexts([one, two])).toBe(
      '# HELP x_total X\n# TYPE x_total counter\nx_total{database="a"} 1\nx_total{database="b"} 3\n# HELP y Y\n# TYPE y gauge\ny{database="a"} 2\n',
    );
  });
});
