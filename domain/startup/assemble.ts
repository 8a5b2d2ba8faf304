import { weigh } from '../../clients/typescript/src/fit/weigh.ts';

/** At most this many plugins add start-up text to one job (SPEC §4). */
export const MAX_STARTUP_PLUGINS = 4;

/** What the runtime posts for one plugin: its entries in priority order, a plain text, or why it failed. */
export interface StartupAnswer {
  readonly plugin: string;
  readonly entries?: readonly { readonly text: string }[] | undefined;
  readonly text?: string | undefined;
  readonly error?: string | undefined;
}

/** `no_answer`: asked but not answered; `not_asked`: an answer from a plugin the start-up did not ask. */
export type LeftOutReason = 'budget' | 'failed' | 'refused' | 'no_answer' | 'not_asked';

export interface Assembly {
  readonly text: string;
  readonly kept: readonly { plugin: string; entries: number }[];
  readonly left_out: readonly { plugin: string; entries: number; reason: LeftOutReason }[];
  readonly tokens: number;
}

export const heading = (plugin: string): string => `## Context from plugin ${plugin}`;

const entriesOf = (a: StartupAnswer): string[] => (a.entries ? a.entries.map((e) => e.text) : a.text !== undefined ? [a.text] : []);

const render = (sections: readonly { plugin: string; entries: readonly string[] }[]): string =>
  sections.map((s) => [heading(s.plugin), ...s.entries].join('\n\n')).join('\n\n');

/**
 * Start-up text (SPEC §4). `plugins` are the plugins asked, in their order (own first, then
 * granted); `refused` those whose call was refused since (a revoked grant). Entries are kept as
 * one prefix of the whole ordered sequence: the first entry that does not fit ends the text, so a
 * plugin's lower-priority entry never displaces a higher one, nor a later plugin an earlier one.
 * Tokens are `weigh` of the assembled text, headings and separators included. Pure.
 */
export const assembleStartupText = (
  plugins: readonly string[],
  answers: readonly StartupAnswer[],
  budget: number,
  refused: readonly string[] = [],
): Assembly => {
  const byPlugin = new Map<string, StartupAnswer>();
  for (const a of answers) if (!byPlugin.has(a.plugin)) byPlugin.set(a.plugin, a);
  const kept: { plugin: string; entries: string[] }[] = [];
  const leftOut: { plugin: string; entries: number; reason: LeftOutReason }[] = [];
  let full = false;
  let text = '';
  for (const plugin of plugins) {
    const answer = byPlugin.get(plugin);
    // A refused plugin is named as refused whether or not the runtime still posted its answer.
    if (refused.includes(plugin)) {
      leftOut.push({ plugin, entries: answer ? entriesOf(answer).length : 0, reason: 'refused' });
      continue;
    }
    if (!answer) {
      leftOut.push({ plugin, entries: 0, reason: 'no_answer' });
      continue;
    }
    const entries = entriesOf(answer);
    if (answer.error !== undefined) {
      leftOut.push({ plugin, entries: entries.length, reason: 'failed' });
      continue;
    }
    const section: { plugin: string; entries: string[] } = { plugin, entries: [] };
    for (const entry of entries) {
      if (full) break;
      const candidate = render([...kept, { plugin, entries: [...section.entries, entry] }]);
      // Each check weighs a text within the budget (at most one check fails): linear in what is kept.
      if (weigh(candidate) <= budget) {
        section.entries.push(entry);
        text = candidate;
      } else full = true;
    }
    if (section.entries.length > 0) kept.push(section);
    if (section.entries.length < entries.length) leftOut.push({ plugin, entries: entries.length - section.entries.length, reason: 'budget' });
  }
  for (const [plugin, answer] of byPlugin) if (!plugins.includes(plugin)) leftOut.push({ plugin, entries: entriesOf(answer).length, reason: 'not_asked' });
  return { text, kept: kept.map((s) => ({ plugin: s.plugin, entries: s.entries.length })), left_out: leftOut, tokens: weigh(text) };
};
