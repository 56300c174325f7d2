// Replaces one `## Heading` section of docs/benchmarks.md (up to the next `## `), keeping the others.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export function replaceDocsSection(file: URL, heading: string, section: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const lines = current.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  const body = section.trimEnd();
  if (start === -1) {
    writeFileSync(file, `${current.trimEnd()}\n\n${body}\n`);
    return;
  }
  let end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  if (end === -1) end = lines.length;
  const before = lines.slice(0, start).join('\n').trimEnd();
  const after = lines.slice(end).join('\n').trim();
  writeFileSync(file, `${before}\n\n${body}\n${after ? `\n${after}\n` : ''}`);
}
