// The role model in one place (docs/roles.md): which rule each route follows, and what each
// project role includes. Every route of buildApp has a rule here; the matrix test
// (policy.int.test.ts) fails when a route is added without one.

/** Roles per project, each including the one before. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export type RouteRule =
  /** No credential, or one the route checks itself (health, sign-in, pages, the document). */
  | { kind: 'public' }
  /** Ingestion: an API key only. */
  | { kind: 'ingest' }
  /** At least this role in the selected project (the admin token and owners hold every role). */
  | { kind: 'project'; role: Role }
  /** Instance owners and the admin token: accounts and memberships of every project. */
  | { kind: 'owner' }
  /** Any signed-in person or the admin token; the route narrows what it shows (own account, own projects). */
  | { kind: 'signed-in' };

export function roleIncludes(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

const viewer: RouteRule = { kind: 'project', role: 'viewer' };
const operator: RouteRule = { kind: 'project', role: 'operator' };
const admin: RouteRule = { kind: 'project', role: 'admin' };
const pub: RouteRule = { kind: 'public' };

/**
 * Rules by `METHOD path` as registered under /v1 (the interface's copies under /ui/api follow
 * the same rule). Replay destinations are listed by operators, who pick one to replay to.
 */
const RULES: Readonly<Record<string, RouteRule>> = {
  'GET /v1/openapi.json': pub,
  'GET /health': pub,
  'GET /ready': pub,
  'GET /': pub,
  'GET /ui': pub,
  'GET /ui/': pub,
  'GET /ui/*': pub,
  'POST /ui/api/session': pub,
  'GET /ui/api/session': pub,
  'DELETE /ui/api/session': pub,
  'POST /ui/api/session/password': pub,
  'POST /ui/api/password-links': pub,
  'GET /ui/api/oidc/start': pub,
  'GET /ui/api/sign-in-options': pub,
  'GET /ui/api/oidc/callback': pub,
  'POST /v1/events': { kind: 'ingest' },
  'POST /v1/events/batch': { kind: 'ingest' },
  'POST /v1/traces': { kind: 'ingest' },
  'POST /v1/logs': { kind: 'ingest' },
  'GET /v1/projects': { kind: 'signed-in' },
  'GET /v1/search': viewer,
  'GET /v1/journeys': viewer,
  'GET /v1/journeys/:journeyId': viewer,
  'GET /v1/journeys/:journeyId/events': viewer,
  'GET /v1/events/:eventId': viewer,
  'GET /v1/journeys/:journeyId/fields': viewer,
  'GET /v1/journeys/:journeyId/changes': viewer,
  'GET /v1/journeys/compare': viewer,
  'GET /v1/journeys/activity': viewer,
  'GET /v1/events/:eventId/diff': viewer,
  'DELETE /v1/journeys/:journeyId': operator,
  'POST /v1/erasures': operator,
  'POST /v1/replays': operator,
  'POST /v1/replays/preview': operator,
  'GET /v1/replays/:replayId': operator,
  // The runs already sent for an event: their headers and answers are the replay's, so the replay's role.
  'GET /v1/events/:eventId/replays': operator,
  'GET /v1/replay-destinations': operator,
  'POST /v1/replay-destinations': admin,
  'DELETE /v1/replay-destinations/:destinationId': admin,
  'PATCH /v1/replay-destinations/:destinationId': admin,
  'POST /v1/replay-destinations/url-check': admin,
  // Project admins read their projects' rows; owners and the admin token every row (docs/roles.md).
  'GET /v1/audit-log': admin,
  'GET /v1/audit-log.csv': admin,
  'GET /v1/projects/:projectId/members': admin,
  'PUT /v1/projects/:projectId/members/:userId': admin,
  'DELETE /v1/projects/:projectId/members/:userId': admin,
  'GET /v1/findings/summary': viewer,
  'GET /v1/projects/:projectId/expectations': viewer,
  'PUT /v1/projects/:projectId/expectations/:entityType': admin,
  'DELETE /v1/projects/:projectId/expectations/:entityType': admin,
  'GET /v1/projects/:projectId/expectations/:entityType/suggestion': admin,
  'POST /v1/projects/:projectId/expectations/:entityType/preview': admin,
  'GET /v1/projects/:projectId/problems': viewer,
  'GET /v1/projects/:projectId/problems/:problemId': viewer,
  'GET /v1/projects/:projectId/problems/:problemId/journeys': viewer,
  // Triage is the operators' work, as replays and deletions are.
  'PATCH /v1/projects/:projectId/problems/:problemId': operator,
  // Verifying a fix by replay: anyone may read the verdicts; sending replays is the operators'.
  'POST /v1/projects/:projectId/problems/:problemId/replays': operator,
  'GET /v1/projects/:projectId/problems/:problemId/replays': viewer,
  'GET /v1/projects/:projectId/problem-replays/:batchId': viewer,
  'GET /v1/projects/:projectId/problem-replays/:batchId/results': viewer,
  'POST /v1/projects/:projectId/problem-replays/:batchId/cancel': operator,
  'GET /v1/projects/:projectId/alert-rules': admin,
  'POST /v1/projects/:projectId/alert-rules': admin,
  'PATCH /v1/projects/:projectId/alert-rules/:ruleId': admin,
  'DELETE /v1/projects/:projectId/alert-rules/:ruleId': admin,
  'POST /v1/projects/:projectId/alert-rules/:ruleId/test': admin,
  'GET /v1/projects/:projectId/alert-rules/:ruleId/deliveries': admin,
  'GET /v1/projects/:projectId/api-keys': admin,
  'POST /v1/projects/:projectId/api-keys': admin,
  // The project is the key's own, read from its prefix (credentials.authorizeResourceProject).
  'DELETE /v1/api-keys/:prefix': admin,
  'GET /v1/projects/:projectId/invitations': admin,
  'POST /v1/projects/:projectId/invitations': admin,
  'POST /v1/projects/:projectId/invitations/:userId': admin,
  'GET /v1/users': { kind: 'owner' },
  'POST /v1/users': { kind: 'owner' },
  'PATCH /v1/users/:userId': { kind: 'owner' },
  'POST /v1/users/:userId/password-links': { kind: 'owner' },
  'GET /v1/me': { kind: 'signed-in' },
  'GET /v1/me/tokens': { kind: 'signed-in' },
  'POST /v1/me/tokens': { kind: 'signed-in' },
  'DELETE /v1/me/tokens/:tokenId': { kind: 'signed-in' },
  'GET /v1/me/sessions': { kind: 'signed-in' },
  'DELETE /v1/me/sessions/:sessionId': { kind: 'signed-in' },
  // Settings: projects and the instance (owners), an environment's settings (the project's admins).
  'POST /v1/projects': { kind: 'owner' },
  'PATCH /v1/projects/:projectId': { kind: 'owner' },
  'GET /v1/projects/:projectId/environments': admin,
  'POST /v1/projects/:projectId/environments': admin,
  'GET /v1/projects/:projectId/environments/:name': admin,
  'PATCH /v1/projects/:projectId/environments/:name': admin,
  'POST /v1/projects/:projectId/environments/:name/capture-preview': admin,
  'POST /v1/projects/:projectId/environments/:name/rename': admin,
  'DELETE /v1/projects/:projectId/environments/:name': admin,
  'GET /v1/instance': { kind: 'owner' },
};

/**
 * What the interface offers, each named by the route it calls: a link or button is shown exactly
 * when that route's rule allows it. GET /ui/api/session (and GET /v1/me) lists the actions a
 * person holds per project, computed here from RULES, so the interface cannot drift from what
 * the server enforces.
 */
export const ACTION_ROUTES = {
  'journeys.read': 'GET /v1/journeys',
  'expectations.read': 'GET /v1/projects/:projectId/expectations',
  'expectations.write': 'PUT /v1/projects/:projectId/expectations/:entityType',
  'alerts.manage': 'POST /v1/projects/:projectId/alert-rules',
  'replay.send': 'POST /v1/replays',
  'journey.delete': 'DELETE /v1/journeys/:journeyId',
  'problems.triage': 'PATCH /v1/projects/:projectId/problems/:problemId',
  'destinations.read': 'GET /v1/replay-destinations',
  'destinations.manage': 'POST /v1/replay-destinations',
  'members.manage': 'GET /v1/projects/:projectId/members',
  'apiKeys.manage': 'POST /v1/projects/:projectId/api-keys',
  'environments.manage': 'PATCH /v1/projects/:projectId/environments/:name',
  'auditLog.read': 'GET /v1/audit-log',
  'instance.read': 'GET /v1/instance',
  'projects.create': 'POST /v1/projects',
  'users.manage': 'POST /v1/users',
} as const;

export type Action = keyof typeof ACTION_ROUTES;
export const ACTIONS = Object.keys(ACTION_ROUTES) as Action[];

/** The rule of an action: the rule of the route it calls. */
export function actionRule(action: Action): RouteRule {
  return RULES[ACTION_ROUTES[action]]!;
}

/** The role an action needs in a project, or 'owner' for the instance's own. */
export function actionNeeds(action: Action): Role | 'owner' {
  const rule = actionRule(action);
  return rule.kind === 'project' ? rule.role : 'owner';
}

/** Project actions a role allows, in ACTIONS order. */
export function projectActions(role: Role): Action[] {
  return ACTIONS.filter((action) => {
    const rule = actionRule(action);
    return rule.kind === 'project' && roleIncludes(role, rule.role);
  });
}

/** Instance actions (owner routes): all of them for owners and the admin token, none otherwise. */
export function instanceActions(owner: boolean): Action[] {
  return owner ? ACTIONS.filter((action) => actionRule(action).kind === 'owner') : [];
}

const UI_API = '/ui/api/v1/';

/** The rule of a registered route, or undefined when none is declared (the matrix test's failure). */
export function ruleOf(method: string, url: string): RouteRule | undefined {
  const verb = method === 'HEAD' ? 'GET' : method;
  const path = url.startsWith(UI_API) ? `/v1/${url.slice(UI_API.length)}` : url;
  return RULES[`${verb} ${path}`];
}

/** The rule of a route that takes a credential; a route without one is refused outright. */
export function requiredRule(method: string, url: string | undefined): RouteRule {
  return (url === undefined ? undefined : ruleOf(method, url)) ?? { kind: 'owner' };
}
