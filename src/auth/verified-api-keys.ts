// API keys this instance has verified, by prefix: the row a full check read, so that search and
// the journey list can check a presented key in memory and confirm the row's standing (not
// revoked, not deleted, the same hash) in their own statement instead of a lookup of their own.
// Nothing is trusted from here without that confirmation: a key revoked through any instance
// fails the very next read, which then runs the full check (docs/decisions.md, "Verified API keys").

import type { EnvironmentRow } from '../projects/environments-sql.ts';

export interface VerifiedApiKey {
  id: string;
  prefix: string;
  projectId: string;
  environmentId: string;
  environmentName: string;
  environment: EnvironmentRow;
  hash: string;
  hashKeyId: string;
}

/**
 * Only valid keys are ever stored, so the count is bounded by the keys an installation issues;
 * the bound keeps memory fixed all the same (the oldest entry goes first).
 */
export const MAX_VERIFIED_API_KEYS = 10_000;

export class VerifiedApiKeys {
  private readonly entries = new Map<string, VerifiedApiKey>();

  constructor(private readonly max = MAX_VERIFIED_API_KEYS) {}

  get(prefix: string): VerifiedApiKey | undefined {
    return this.entries.get(prefix);
  }

  remember(key: VerifiedApiKey): void {
    this.entries.delete(key.prefix);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key.prefix, key);
  }

  forget(prefix: string): void {
    this.entries.delete(prefix);
  }

  get size(): number {
    return this.entries.size;
  }
}
