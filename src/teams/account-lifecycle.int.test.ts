// The account lifecycle of docs/roles.md: who moves an account between created, invited, pending,
// active and disabled, and who may issue its set-password link in each state. A link is the
// account's whole sign-in: a project admin issues one only for an account their own project's
// invitation made and no one else has a claim on, and never voids a link an owner issued.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { keyring } from '../web/test-kit.ts';
import { PASSWORD, SAME_ORIGIN, makePerson, passwordSignIn, sessionOf, tokenOf } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let own: SeededProject;
let other: SeededProject;
let nowMs = Date.now();

type Actor = 'owner' | 'admin-token' | 'cli' | 'project-admin' | 'other-admin' | 'operator' | 'viewer';
const ACTORS: Actor[] = ['owner', 'admin-token', 'cli', 'project-admin', 'other-admin', 'operator', 'viewer'];
const headers = new Map<Actor, Record<string, string>>();

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring, now: () => nowMs })).app;
  own = await seedProject(db.pool, keyring, 'life-own');
  other = await seedProject(db.pool, keyring, 'life-other');
  headers.set('admin-token', bearer(TEST_ADMIN_TOKEN));
  const people: [Actor, Record<string, 'admin' | 'operator' | 'viewer'>, boolean][] = [
    ['owner', {}, true],
    ['project-admin', { [own.projectId]: 'admin' }, false],
    ['other-admin', { [other.projectId]: 'admin' }, false],
    ['operator', { [own.projectId]: 'operator' }, false],
    ['viewer', { [own.projectId]: 'viewer' }, false],
  ];
  for (const [actor, roles, owner] of people) {
    const person = await makePerson(db.pool, roles, { owner });
    headers.set(actor, bearer((await tokenOf(app, await sessionOf(app, person.email))).secret));
  }
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const cli = (argv: string[]) => runTestCli(argv, { pool: db.pool, keyring });
const as = (actor: Actor) => headers.get(actor)!;
let counter = 0;
const freshEmail = () => `life-${++counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const tokenOfLink = (url: string) => url.split('#token=')[1];
const setPassword = (url: string) => app.inject({ method: 'POST', url: '/ui/api/password-links', headers: SAME_ORIGIN, payload: { token: tokenOfLink(url), password: PASSWORD } });
const invite = (projectId: string, email: string, actor: Actor) => app.inject({ method: 'POST', url: `/v1/projects/${projectId}/invitations`, headers: as(actor), payload: { email, role: 'viewer' } });
const reissue = (projectId: string, userId: string, actor: Actor) => app.inject({ method: 'POST', url: `/v1/projects/${projectId}/invitations/${userId}`, headers: as(actor) });
const resetLink = (userId: string, actor: Actor) => app.inject({ method: 'POST', url: `/v1/users/${userId}/password-links`, headers: as(actor) });
const grant = (projectId: string, userId: string, actor: Actor) => app.inject({ method: 'PUT', url: `/v1/projects/${projectId}/members/${userId}`, headers: as(actor), payload: { role: 'viewer' } });
const patchState = (userId: string, state: 'active' | 'disabled', actor: Actor) => app.inject({ method: 'PATCH', url: `/v1/users/${userId}`, headers: as(actor), payload: { state } });
const idOf = async (email: string) => (await db.pool.query<{ id: string }>('SELECT id FROM users WHERE lower(email) = lower($1)', [email])).rows[0]!.id;

/** `ok` for a success, else the status and error code. */
function outcome(response: LightMyRequestResponse): string {
  return response.statusCode < 300 ? 'ok' : `${response.statusCode} ${response.json().error.code}`;
}

interface Account {
  id: string;
  email: string;
  /** The live link someone holds for the account, if any. */
  link: string | null;
}

type State = 'created' | 'pending (created, granted)' | 'invited' | 'pending (owner link)' | 'pending (role elsewhere)' | 'active' | 'disabled';

/** Brings a new account into the state, as the documented flows do. */
async function accountIn(state: State): Promise<Account> {
  const email = freshEmail();
  if (state === 'created' || state === 'pending (created, granted)') {
    const created = await cli(['user:create', email, '--json']);
    expect(created.code, created.err.join('\n')).toBe(0);
    if (state === 'pending (created, granted)') expect((await cli(['user:grant', email, own.slug, 'admin'])).code).toBe(0);
    return { id: await idOf(email), email, link: JSON.parse(created.out[0]!).link };
  }
  const invited = await invite(own.projectId, email, 'project-admin');
  expect(invited.statusCode, invited.body).toBe(201);
  const account: Account = { id: invited.json().data.member.id, email, link: invited.json().data.link.url };
  if (state === 'pending (owner link)') {
    const link = await reissue(own.projectId, account.id, 'owner');
    expect(link.statusCode, link.body).toBe(201);
    account.link = link.json().data.url;
  }
  if (state === 'pending (role elsewhere)') expect((await grant(other.projectId, account.id, 'owner')).statusCode).toBe(204);
  if (state === 'active' || state === 'disabled') {
    expect((await setPassword(account.link!)).statusCode).toBe(204);
    account.link = null;
  }
  if (state === 'disabled') expect((await patchState(account.id, 'disabled', 'owner')).statusCode).toBe(200);
  return account;
}

/** The one way each actor has to get a link for the account (the invitations route for a pending member). */
async function issueLink(actor: Actor, account: Account, state: State): Promise<{ outcome: string; link: string | null }> {
  if (actor === 'cli') {
    const run = await cli(['user:reset', account.email, '--json']);
    return run.code === 0 ? { outcome: 'ok', link: JSON.parse(run.out[0]!).link } : { outcome: `exit ${run.code}`, link: null };
  }
  const pendingInOwn = state.startsWith('pending') || state === 'invited';
  const response =
    actor === 'other-admin' ? await reissue(other.projectId, account.id, actor)
    : actor === 'owner' || actor === 'admin-token' ? await (pendingInOwn ? reissue(own.projectId, account.id, actor) : resetLink(account.id, actor))
    : await reissue(own.projectId, account.id, actor);
  return { outcome: outcome(response), link: response.statusCode === 201 ? response.json().data.url : null };
}

const ANYONE_INSTANCE_WIDE = { owner: 'ok', 'admin-token': 'ok', cli: 'ok', operator: '403 forbidden', viewer: '403 forbidden' } as const;

/** Who may issue a link, per state (docs/roles.md, "Account lifecycle"). */
const LINK_RULES: Record<State, Record<Actor, string>> = {
  created: { ...ANYONE_INSTANCE_WIDE, 'project-admin': '404 not_found', 'other-admin': '404 not_found' },
  'pending (created, granted)': { ...ANYONE_INSTANCE_WIDE, 'project-admin': '403 forbidden', 'other-admin': '404 not_found' },
  invited: { ...ANYONE_INSTANCE_WIDE, 'project-admin': 'ok', 'other-admin': '404 not_found' },
  'pending (owner link)': { ...ANYONE_INSTANCE_WIDE, 'project-admin': '403 forbidden', 'other-admin': '404 not_found' },
  'pending (role elsewhere)': { ...ANYONE_INSTANCE_WIDE, 'project-admin': '403 forbidden', 'other-admin': '403 forbidden' },
  active: { ...ANYONE_INSTANCE_WIDE, 'project-admin': '404 not_found', 'other-admin': '404 not_found' },
  disabled: { ...ANYONE_INSTANCE_WIDE, 'project-admin': '404 not_found', 'other-admin': '404 not_found' },
};

describe('set-password links, every actor in every state', () => {
  for (const [state, rules] of Object.entries(LINK_RULES) as [State, Record<Actor, string>][]) {
    for (const actor of ACTORS) {
      it(`${state}: ${actor} gets ${rules[actor]}`, async () => {
        const account = await accountIn(state);
        const issued = await issueLink(actor, account, state);
        expect(issued.outcome).toBe(rules[actor]);
        if (issued.outcome === 'ok') {
          // The new link replaces the old one and sets the password (a disabled account's waits).
          if (account.link !== null) expect(outcome(await setPassword(account.link))).toBe('404 not_found');
          expect(outcome(await setPassword(issued.link!))).toBe(state === 'disabled' ? '404 not_found' : 'ok');
        } else if (account.link !== null) {
          // A refusal leaves whatever link someone holds working.
          expect(outcome(await setPassword(account.link))).toBe('ok');
        }
      });
    }
  }
});

describe('moving an account between states, as each actor', () => {
  type Transition = { name: string; from: State | null; act: (actor: Actor, account: Account | null) => Promise<string>; rules: Partial<Record<Actor, string>> };
  const viaCli = async (argv: string[]) => {
    const run = await cli(argv);
    return run.code === 0 ? 'ok' : `exit ${run.code}`;
  };
  const refusedBelowAdmin = { operator: '403 forbidden', viewer: '403 forbidden' } as const;
  const transitions: Transition[] = [
    {
      name: 'create (-> created)',
      from: null,
      act: async (actor) => (actor === 'cli' ? viaCli(['user:create', freshEmail()]) : outcome(await app.inject({ method: 'POST', url: '/v1/users', headers: as(actor), payload: { email: freshEmail() } }))),
      rules: { owner: 'ok', 'admin-token': 'ok', cli: 'ok', 'project-admin': '403 forbidden', 'other-admin': '403 forbidden', ...refusedBelowAdmin },
    },
    {
      // The CLI has no invitation; user:create then user:grant is its way.
      name: 'invite a new e-mail (-> invited)',
      from: null,
      act: async (actor) => outcome(await invite(own.projectId, freshEmail(), actor)),
      rules: { owner: 'ok', 'admin-token': 'ok', 'project-admin': 'ok', 'other-admin': '404 project_not_found', ...refusedBelowAdmin },
    },
    {
      name: 'grant a role to a created account (-> pending)',
      from: 'created',
      act: async (actor, account) => (actor === 'cli' ? viaCli(['user:grant', account!.email, own.slug, 'viewer']) : outcome(await grant(own.projectId, account!.id, actor))),
      rules: { owner: 'ok', 'admin-token': 'ok', cli: 'ok', 'project-admin': 'ok', 'other-admin': '404 project_not_found', ...refusedBelowAdmin },
    },
    {
      name: 'invite the e-mail of a created account (-> pending, no link)',
      from: 'created',
      act: async (actor, account) => {
        const response = await invite(own.projectId, account!.email, actor);
        if (response.statusCode === 201) expect(response.json().data.link).toBeNull();
        return outcome(response);
      },
      rules: { owner: 'ok', 'admin-token': 'ok', 'project-admin': 'ok', 'other-admin': '404 project_not_found', ...refusedBelowAdmin },
    },
    {
      name: 'disable an active account (-> disabled)',
      from: 'active',
      act: async (actor, account) => (actor === 'cli' ? viaCli(['user:disable', account!.email]) : outcome(await patchState(account!.id, 'disabled', actor))),
      rules: { owner: 'ok', 'admin-token': 'ok', cli: 'ok', 'project-admin': '403 forbidden', 'other-admin': '403 forbidden', ...refusedBelowAdmin },
    },
    {
      name: 'enable a disabled account (-> active)',
      from: 'disabled',
      act: async (actor, account) => (actor === 'cli' ? viaCli(['user:enable', account!.email]) : outcome(await patchState(account!.id, 'active', actor))),
      rules: { owner: 'ok', 'admin-token': 'ok', cli: 'ok', 'project-admin': '403 forbidden', 'other-admin': '403 forbidden', ...refusedBelowAdmin },
    },
  ];
  for (const transition of transitions) {
    for (const [actor, rule] of Object.entries(transition.rules) as [Actor, string][]) {
      it(`${transition.name}: ${actor} gets ${rule}`, async () => {
        const account = transition.from === null ? null : await accountIn(transition.from);
        expect(await transition.act(actor, account)).toBe(rule);
      });
    }
  }

  it('activates an invited or created account through its link only, and a disabled one not at all', async () => {
    for (const state of ['created', 'pending (created, granted)', 'invited', 'pending (owner link)'] as const) {
      const account = await accountIn(state);
      expect(outcome(await setPassword(account.link!))).toBe('ok');
      expect((await passwordSignIn(app, account.email, PASSWORD)).statusCode).toBe(204);
    }
    const invited = await accountIn('invited');
    expect((await patchState(invited.id, 'disabled', 'owner')).statusCode).toBe(200);
    expect(outcome(await setPassword(invited.link!))).toBe('404 not_found');
  });
});

describe('taking over an account an owner made', () => {
  it('fails step by step: the invitation hands out no link, the project admin gets none, the owner link still signs in', async () => {
    // The README's flow: user:create, and user:grant later.
    const email = freshEmail();
    const created = await cli(['user:create', email, '--json']);
    const ownerLink = JSON.parse(created.out[0]!).link as string;
    const id = await idOf(email);

    const invited = await invite(own.projectId, email.toUpperCase(), 'project-admin');
    expect(invited.statusCode, invited.body).toBe(201);
    expect(invited.json().data.link).toBeNull();
    expect(outcome(await reissue(own.projectId, id, 'project-admin'))).toBe('403 forbidden');
    expect(outcome(await resetLink(id, 'project-admin'))).toBe('403 forbidden');
    expect(await db.pool.query('SELECT 1 FROM password_links WHERE user_id = $1 AND used_at IS NULL', [id])).toMatchObject({ rowCount: 1 });

    expect((await cli(['user:grant', email, other.slug, 'admin'])).code).toBe(0);
    expect(outcome(await setPassword(ownerLink))).toBe('ok');
    const session = await passwordSignIn(app, email, PASSWORD);
    expect(session.statusCode).toBe(204);
  });

  it('never lets a project admin void a live link an owner issued, even for their own invitation', async () => {
    const account = await accountIn('pending (owner link)');
    expect(outcome(await reissue(own.projectId, account.id, 'project-admin'))).toBe('403 forbidden');
    expect(outcome(await setPassword(account.link!))).toBe('ok');
  });

  it("leaves an owner's invitation to owners while the owner's link is live, and to the project once it expired", async () => {
    const invited = await invite(own.projectId, freshEmail(), 'owner');
    expect(invited.statusCode, invited.body).toBe(201);
    const id = invited.json().data.member.id as string;
    expect(outcome(await reissue(own.projectId, id, 'project-admin'))).toBe('403 forbidden');
    nowMs += 72 * 3_600_000;
    expect(outcome(await setPassword(invited.json().data.link.url))).toBe('404 not_found');
    const link = await reissue(own.projectId, id, 'project-admin');
    expect(link.statusCode, link.body).toBe(201);
    expect(outcome(await setPassword(link.json().data.url))).toBe('ok');
  });
});
