/** The persistent map a job's state is kept in: shared with the scope's and the agent's states (domain/shared/keyed.ts). */
export * from '../shared/keyed.ts';
