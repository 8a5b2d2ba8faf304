import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU (ms) used so far by the PostgreSQL backends connected to `database` (Linux `/proc`, the
 * server on this machine; NaN elsewhere). A backend that ended during a phase takes its share
 * with it, so the pools measured keep their connections open.
 */
export const postgresCpuMs = (database: string): number => {
  try {
    let ticks = 0;
    const prefix = new RegExp(`^postgres: \\S+ ${database} `);
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        if (!prefix.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        // utime and stime, in clock ticks (100 a second on Linux).
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // the process is gone
      }
    }
    return ticks * 10;
  } catch {
    return NaN;
  }
};
