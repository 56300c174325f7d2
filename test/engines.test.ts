// The Node.js the package promises (package.json engines) runs every package it installs: npm ci
// warns of none, and no dependency needs a newer Node than the README states.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] }>;
};

it('installs only packages that run on the oldest Node.js the engines field admits', () => {
  const oldest = semver.minVersion(pkg.engines.node)!;
  expect(oldest.major).toBe(20);
  const refusing = Object.entries(lock.packages)
    .filter(([name, entry]) => name !== '' && !Array.isArray(entry.engines) && entry.engines?.node)
    .filter(([, entry]) => !semver.satisfies(oldest, (entry.engines as { node: string }).node))
    .map(([name, entry]) => `${name.replace(/^.*node_modules\//, '')} needs ${(entry.engines as { node: string }).node}`);
  expect(refusing).toEqual([]);
});

it('states the same oldest Node.js in the README', () => {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const oldest = semver.minVersion(pkg.engines.node)!;
  expect(readme).toContain(`Node.js ${oldest.major}.${oldest.minor} or later`);
});
