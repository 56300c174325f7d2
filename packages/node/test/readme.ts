// Reads a README's code blocks, so a test can run what a reader pastes exactly as it is written.
import { readFileSync } from 'node:fs';

/** The fenced blocks of `language` under the `## heading` section of a Markdown file, in order. */
export function codeBlocks(file: string | URL, heading: string, language: string): string[] {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section "## ${heading}"`);
  const next = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, next === -1 ? undefined : next);
  const blocks: string[] = [];
  const fence = /^```([\w-]*)\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(section); match !== null; match = fence.exec(section)) {
    if (match[1] === language) blocks.push(match[2]!);
  }
  return blocks;
}
