import { AsyncLocalStorage } from 'node:async_hooks';
import type { AdmissionGuard } from '../../domain/ports/admission-guard.ts';

export { GuardFailed, type AdmissionGuard, type GuardWrite } from '../../domain/ports/admission-guard.ts';

/** The guard of the request whose work runs inside `run`: its first append carries it. */
export const admissionGuards = new AsyncLocalStorage<AdmissionGuard>();
