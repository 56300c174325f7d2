import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GO_PROTOCOL_COPY, renderGoProtocol } from '../../../scripts/generate-go-protocol.ts';

describe('the Go SDK copy of the protocol kernel data', () => {
  it('is what scripts/generate-go-protocol.ts makes from src/protocol now', () => {
    // On failure: node --import tsx scripts/generate-go-protocol.ts, and commit the result.
    expect(readFileSync(GO_PROTOCOL_COPY, 'utf8')).toBe(renderGoProtocol());
  });
});
