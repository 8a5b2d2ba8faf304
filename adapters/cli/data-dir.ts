import path from 'node:path';

/** --data-dir, else CUSTODIAN_DATA_DIR, else ./data, as an absolute path. */
export const dataDirOf = (option?: string) => path.resolve(option ?? process.env.CUSTODIAN_DATA_DIR ?? './data');
