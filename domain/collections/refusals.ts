import { refusal, type RefusalCode } from '../shared/refusal.ts';

/** The seed's error shape: `records: <what is wrong>: <what to change>`. */
export const recordsRefusal = <C extends RefusalCode>(code: C, wrong: string, change: string) => refusal(code, { message: `records: ${wrong}: ${change}` });

export const noCollection = (name: string) => recordsRefusal('not_found', `no collection named ${name}`, 'declare it in createRecords({ collections })');

export const forgottenWhileRunning = () => refusal('forgotten', { message: 'records: not kept: the person was forgotten while the tool ran' });
