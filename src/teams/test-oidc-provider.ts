// A real OpenID provider (oidc-provider) on a loopback port for the single sign-on tests, with
// an interaction that signs in whichever account the test names, and a browser-like driver
// that follows the provider's redirects with its cookies until it reaches the redirect URI.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  email_verified: boolean;
}

export interface TestProvider {
  issuer: string;
  accounts: Map<string, TestAccount>;
  /** The account the next sign-in at the provider uses. */
  signInAs(accountId: string): void;
  /** Follows an authorization URL to the callback URL the provider redirects to. */
  authorize(url: string): Promise<URL>;
  close(): Promise<void>;
}

export const CLIENT_ID = 'jtrace-tests';
export const CLIENT_SECRET = 'jtrace-tests-client-secret-0123456789abcdef';

export async function startTestProvider(redirectUrl: string): Promise<TestProvider> {
  const accounts = new Map<string, TestAccount>();
  let next = '';
  let handler: http.RequestListener = () => undefined;
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUrl], token_endpoint_auth_method: 'client_secret_post' }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // The e-mail in the ID token itself, not only at the userinfo endpoint.
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub, ...accounts.get(sub) }) }),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    pkce: { required: () => true },
  } as ConstructorParameters<typeof Provider>[1]);
  const callback = provider.callback();
  handler = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        return provider.interactionFinished(req, res, { login: { accountId: next } }, { mergeWithLastSubmission: false });
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
      grant.addOIDCScope('openid email profile');
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    })().catch(() => {
      res.statusCode = 500;
      res.end();
    });
  };

  return {
    issuer,
    accounts,
    signInAs: (accountId) => {
      next = accountId;
    },
    async authorize(url) {
      const jar = new Map<string, string>();
      let current = new URL(url);
      for (let hop = 0; hop < 20; hop++) {
        if (current.href.startsWith(redirectUrl)) return current;
        const response = await fetch(current, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const at = pair!.indexOf('=');
          jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
        }
        const location = response.headers.get('location');
        if (location === null) throw new Error(`the provider answered ${response.status} without a redirect`);
        current = new URL(location, current);
      }
      throw new Error('too many redirects');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
