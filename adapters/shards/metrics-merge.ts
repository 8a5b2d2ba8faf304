/**
 * Several registries' Prometheus texts as one: each family's HELP and TYPE once, then every
 * registry's samples of it (each cell's carry its own `database` label, so none collide).
 */
export const mergeMetricTexts = (texts: readonly string[]): string => {
  const families = new Map<string, { head: string[]; samples: string[] }>();
  for (const text of texts) {
    let current: { head: string[]; samples: string[] } | undefined;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const meta = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (meta) {
        const name = meta[2]!;
        current = families.get(name);
        if (!current) families.set(name, (current = { head: [], samples: [] }));
        if (current.head.length < 2 && !current.head.some((h) => h.startsWith(`# ${meta[1]!} `))) current.head.push(line);
        continue;
      }
      current?.samples.push(line);
    }
  }
  return [...families.values()].map((f) => [...f.head, ...f.samples].join('\n')).join('\n') + '\n';
};
