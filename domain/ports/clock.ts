/** The service clock: ms since epoch. Tests move it with POST /v1/_clock, never by sleeping. */
export interface Clock {
  now(): number;
}
