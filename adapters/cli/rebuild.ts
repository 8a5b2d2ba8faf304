import { SingleBar, Presets } from 'cli-progress';
import { allProjections, projectionNames } from '../../projections/all.ts';
import { postgresKeystore } from '../keys/keystore.ts';
import { loadMasterKey } from '../keys/master.ts';
import { rebuildProjection } from '../../projections/runner.ts';
import { createPool } from '../postgres/pool.ts';
import { applySchema } from '../postgres/schema.ts';
import { postgresReadModelStore } from '../postgres/read-model-store.ts';
import { dataDirOf, openAuthenticatedEventStore, openDatabase } from './database.ts';

/** `custodian rebuild <projection>`: replays the whole log into one read model. */
export const rebuild = async (name: string, opts: { dataDir?: string }) => {
  if (!(projectionNames as readonly string[]).includes(name)) {
    process.stderr.write(`custodian: no projection "${name}"; known: ${projectionNames.join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  const dataDir = dataDirOf(opts.dataDir);
  const db = await openDatabase(dataDir);
  const pool = createPool(db.url, 4);
  try {
    await applySchema(pool);
    const store = await openAuthenticatedEventStore(pool, dataDir);
    const models = postgresReadModelStore(pool);
    const projections = allProjections({ sealer: await postgresKeystore(pool, loadMasterKey(dataDir)) });
    const projection = projections.find((p) => p.name === name)!;
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
