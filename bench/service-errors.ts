import pino from 'pino';

/**
 * The service's error log during a bench: a failing projection or a 500 is a finding, so each
 * distinct error is printed once, loudly, and repeats are counted (a projection that fails
 * retries every poll and would otherwise flood the output, or, without a logger, stay silent).
 */
export const serviceErrors = (label: string) => {
  const seen = new Map<string, number>();
  const stream = {
    write(line: string) {
      let o: { msg?: string; projection?: string; err?: { message?: string }; res?: { statusCode?: number }; req?: { url?: string } };
      try {
        o = JSON.parse(line) as typeof o;
      } catch {
        o = { msg: line.trim() };
      }
      const key = [o.msg, o.projection, o.req?.url, o.err?.message?.split('\n')[0]].filter(Boolean).join(' | ').slice(0, 300);
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      if (n === 1) console.log(`  !! SERVICE ERROR (${label}): ${key}`);
    },
  };
  return {
    logger: pino({ level: 'error' }, stream),
    summary() {
      for (const [key, n] of seen) if (n > 1) console.log(`  !! SERVICE ERROR (${label}) repeated ${n} times: ${key}`);
    },
  };
};
