import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PYTHON_PROTOCOL_COPY, renderPythonProtocol } from '../../../scripts/generate-python-protocol.ts';

describe('the Python SDK copy of the protocol kernel data', () => {
  it('is what scripts/generate-python-protocol.ts makes from src/protocol now', () => {
    // On failure: node --import tsx scripts/generate-python-protocol.ts, and commit the result.
    expect(readFileSync(PYTHON_PROTOCOL_COPY, 'utf8')).toBe(renderPythonProtocol());
  });
});
