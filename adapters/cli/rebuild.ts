import { SingleBar, Presets } from 'cli-progress';
import { allProjections, projectionNamed } from '../../projections/all.ts';
import { ensureProjectionSchemas, rebuildProjection } from '../../projections/runner.ts';
import { postgresEventStore } from '../eventstore/postgres.ts';
import { createPool } from '../postgres/pool.ts';
import { postgresReadModelStore } from '../postgres/read-model-store.ts';
import { dataDirOf, openDatabase } from './database.ts';

/** `custodian rebuild <projection>`: replays the whole log into one read model. */
export const rebuild = async (name: string, opts: { dataDir?: string }) => {
  const projection = projectionNamed(name);
  if (!projection) {
    process.stderr.write(`custodian: no projection "${name}"; known: ${allProjections.map((p) => p.name).join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  const db = await openDatabase(dataDirOf(opts.dataDir));
  const pool = createPool(db.url, 4);
  try {
    const store = await postgresEventStore(pool);
    const models = postgresReadModelStore(pool);
    await ensureProjectionSchemas(models, allProjections);
    const bar = new SingleBar({ format: `rebuild ${name} [{bar}] {value}/{total} events`, stream: process.stderr }, Presets.shades_classic);
    let started = false;
    const position = await rebuildProjection(store, models, projection, (done, head) => {
      if (!started) bar.start(head, done);
      started = true;
      bar.update(done);
    });
    bar.stop();
    process.stdout.write(`${JSON.stringify({ projection: name, position })}\n`);
    await store.close();
  } finally {
    await pool.end();
    await db.release();
  }
};
