// The URL check the Settings page runs as an admin types a base URL: the same rules the create
// and edit bodies apply, plus whether REPLAY_ALLOWED_HOSTS lets replays reach the host. The host
// list is server configuration, so this is a route rather than a rule in src/protocol.

import { z } from 'zod';
import { textField } from '../http/body-fields.ts';
import { normalizeBaseUrl, isHostAllowed } from './url-policy.ts';

export const urlCheckBodySchema = z.object({ baseUrl: textField() });

export interface UrlCheck {
  /** The stored form when the URL is acceptable, else null. */
  baseUrl: string | null;
  /** Why a create or edit would refuse it, in the error `details` shape; empty when none. */
  problems: { path: string; message: string }[];
  /** Whether replays may be sent to its host; null when the URL is refused anyway. */
  hostAllowed: boolean | null;
}

export function checkBaseUrl(raw: string, allowedHosts: readonly string[]): UrlCheck {
  const checked = normalizeBaseUrl(raw);
  if (!checked.ok) return { baseUrl: null, problems: [{ path: 'baseUrl', message: checked.message }], hostAllowed: null };
  return { baseUrl: checked.value, problems: [], hostAllowed: isHostAllowed(new URL(checked.value).hostname, allowedHosts) };
}
