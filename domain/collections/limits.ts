// The limits an agent's records are held to live with the SDK, which checks a declaration before
// sending it; the service enforces the very same values.
export * from '../../clients/typescript/src/limits.ts';
