// What a notification says. The outbox stores the facts (rule, window, count, journey ids); the
// body is rendered at send time for the rule's channel: JSON for a webhook, `{text}` for a
// Slack-style incoming webhook. Journey ids and field paths only: never an entity id or alias.

export interface Notification {
  notification: 'firing' | 'resolved';
  rule: { id: string; projectId: string; name: string; kind: string; path: string | null; entityType: string | null; environment: string | null; threshold: { count: number; windowMinutes: number } };
  windowStart: string;
  windowEnd: string;
  /** Findings of the rule first found in the window up to `countedAt`; for a regression rule, problems that came back. */
  count: number;
  /** When the count was taken: a pending notification is counted again at every pass. */
  countedAt: string;
  /** The window had ended (and settled) when counted, so `count` is final; false: it may still grow. */
  windowComplete: boolean;
  journeys: string[];
}

/** Where the web interface shows a journey, relative to the server's origin. */
export function journeyLink(projectId: string, journeyId: string): string {
  return `/ui/projects/${encodeURIComponent(projectId)}/journeys/${encodeURIComponent(journeyId)}`;
}

export function notificationBody(channel: 'webhook' | 'slack', n: Notification, deliveryId: string): string {
  const journeys = n.journeys.map((journeyId) => ({ journeyId, link: journeyLink(n.rule.projectId, journeyId) }));
  if (channel === 'webhook') return JSON.stringify({ deliveryId, ...n, journeys });
  const what = `${n.rule.kind}${n.rule.path === null ? '' : ` ${n.rule.path}`}`;
  const text =
    n.notification === 'firing'
      ? `jtrace: ${n.count} ${n.rule.kind === 'regression' ? `problem${n.count === 1 ? '' : 's'} came back${n.rule.path === null ? '' : ` (${n.rule.path})`}` : `${what} finding${n.count === 1 ? '' : 's'}`} (rule "${n.rule.name}", ${n.windowStart} to ${n.windowEnd}` +
        `${n.windowComplete === false ? `, so far: counted at ${n.countedAt}` : ''})` +
        (journeys.length === 0 ? '' : `\n${journeys.map((j) => `• ${j.journeyId} ${j.link}`).join('\n')}`)
      : `jtrace: resolved — rule "${n.rule.name}" (${what}) is below its threshold since ${n.windowStart}`;
  return JSON.stringify({ text });
}
