// Single sign-on through OpenID Connect (docs/roles.md, "Single sign-on"): Authorization Code
// with PKCE through openid-client, which checks the state, the nonce, the PKCE verifier, the
// issuer and the ID token's signature. What jtrace decides itself is who may come in: a verified
// e-mail of an existing active account, or of an allowed domain (a new account, with the default
// role in the default projects).
import * as client from 'openid-client';
import type { OidcConfig } from '../config/config.ts';
import type { Pool } from '../db/pool.ts';
import { errors } from '../http/errors.ts';
import { findProjectBySlug } from '../projects/projects-sql.ts';
import { createUser, grantRole } from './accounts.ts';
import { findUserByEmail, recordSignIn, type UserRow } from './users-sql.ts';

/** What the browser carries between the start and the callback (sealed in a cookie by the caller). */
export interface OidcFlowState {
  state: string;
  nonce: string;
  verifier: string;
}

export interface OidcClient {
  start(): Promise<{ url: string; flow: OidcFlowState }>;
  /** The verified e-mail of the callback, or 401 unauthorized. */
  finish(callbackUrl: URL, flow: OidcFlowState): Promise<string>;
}

const isLoopback = (url: URL) => ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);

export function createOidcClient(config: OidcConfig): OidcClient {
  let discovered: Promise<client.Configuration> | null = null;
  const configuration = () => {
    const issuer = new URL(config.issuer);
    // Plain http only for a provider on this machine (a development identity provider).
    const insecure = issuer.protocol === 'http:' && isLoopback(issuer);
    discovered ??= client
      .discovery(issuer, config.clientId, undefined, client.ClientSecretPost(config.clientSecret), insecure ? { execute: [client.allowInsecureRequests] } : undefined)
      .catch((error: unknown) => {
        // Tried again on the next sign-in: the provider may be back.
        discovered = null;
        throw error;
      });
    return discovered;
  };
  return {
    async start() {
      const flow = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
      const url = client.buildAuthorizationUrl(await configuration(), {
        redirect_uri: config.redirectUrl,
        scope: 'openid email profile',
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, flow };
    },
    async finish(callbackUrl, flow) {
      let claims: client.IDToken | undefined;
      try {
        const tokens = await client.authorizationCodeGrant(await configuration(), callbackUrl, {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims();
      } catch {
        // A tampered state, a replayed code, a wrong nonce, a bad signature: all one refusal.
        throw errors.unauthorized();
      }
      // An address the provider has not verified proves nothing about who signs in.
      if (claims === undefined || typeof claims.email !== 'string' || claims.email_verified !== true) throw errors.unauthorized();
      return claims.email;
    },
  };
}

/** The account a verified e-mail signs in: an active existing one, or a new one of an allowed domain. */
export async function accountForOidc(pool: Pool, config: OidcConfig, email: string, clientAddress: string, nowMs: number): Promise<UserRow> {
  const existing = await findUserByEmail(pool, email);
  if (existing !== null) {
    if (existing.state !== 'active') throw errors.unauthorized();
    await recordSignIn(pool, existing.id, new Date(nowMs));
    return existing;
  }
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (!config.allowedDomains.includes(domain)) throw errors.unauthorized();
  const { user } = await createUser(pool, { email, invite: false }, { kind: 'none', clientAddress }, nowMs);
  const self = { kind: 'user' as const, userId: user.id, email: user.email, clientAddress };
  for (const slug of config.defaultProjects) {
    const project = await findProjectBySlug(pool, slug);
    if (project !== null) await grantRole(pool, project.id, user.id, config.defaultRole, self);
  }
  await recordSignIn(pool, user.id, new Date(nowMs));
  return user;
}
