/** A short, growing, jittered pause between attempts after a conflict. */
export const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
