/**
 * A sleep that a signal can cut short: pollers wait `ms` for news, and wake at once when an
 * append is announced.
 */
export const wakeablePause = () => {
  let wake: (() => void) | null = null;
  return {
    pause: (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      }),
    wake: () => wake?.(),
  };
};
