/** Counts a call's requests: answers this request's 1-based index in its call. */
export interface RequestCounter {
  next(call: string): Promise<number>;
}
