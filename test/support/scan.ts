import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const MAX_FILE = 256 * 1024 * 1024;

/**
 * Every file under a PostgreSQL data directory, read whole. Other test files drop their
 * databases meanwhile: a file that vanishes between listing and reading holds nothing to find.
 */
export const scanDataDirectory = (dir: string, visit: (bytes: Buffer, file: string) => void): number => {
  let scanned = 0;
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        let bytes: Buffer;
        try {
          bytes = readFileSync(p);
        } catch {
          continue;
        }
        if (bytes.length > MAX_FILE) continue;
        scanned += bytes.length;
        visit(bytes, p);
      }
    }
  };
  walk(dir);
  return scanned;
};
