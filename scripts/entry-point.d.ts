export type Entry = { kind: 'compiled'; url: URL } | { kind: 'source'; url: URL; reason: string };
export function newestSourceMtime(root?: URL): number;
export function pickEntry(name: string, root?: URL): Entry;
export function runEntry(entry: Entry): Promise<void>;
