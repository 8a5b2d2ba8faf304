import { createRecords, memoryRecordsStore, type Records } from '../../../sdk/records.ts';
import { recordsContract } from './contract.ts';

const fillByPuts = async (records: Records, collection: string, n: number) => {
  for (let i = 0; i < n; i++) await records.put(collection, `fill${i}`, {});
};

recordsContract({
  name: 'memory',
  async fresh() {
    const store = memoryRecordsStore();
    return { open: (collections) => createRecords({ store, collections }) };
  },
  fill: fillByPuts,
});
