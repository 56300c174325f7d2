// Alias masking (event-protocol 4.3, 12.2): the one display form of an alias value that is not
// displayable in the clear, shared by the API, the interface and the SDK.

import {
  MASK_ELLIPSIS,
  MASK_HEAD_CODE_POINTS,
  MASK_HIDE_ALL_MAX_CODE_POINTS,
  MASK_TAIL_CODE_POINTS,
} from './limits.ts';

/**
 * The masked display form: first 4 code points, `…`, last 3 (`someone@example.com` →
 * `some…com`). Values of 8 code points or fewer become `…` alone. Counting code points keeps
 * a character outside the BMP whole instead of showing half a surrogate pair.
 */
export function maskAliasValue(value: string): string {
  const codePoints = Array.from(value);
  if (codePoints.length <= MASK_HIDE_ALL_MAX_CODE_POINTS) return MASK_ELLIPSIS;
  const head = codePoints.slice(0, MASK_HEAD_CODE_POINTS).join('');
  const tail = codePoints.slice(codePoints.length - MASK_TAIL_CODE_POINTS).join('');
  return `${head}${MASK_ELLIPSIS}${tail}`;
}
