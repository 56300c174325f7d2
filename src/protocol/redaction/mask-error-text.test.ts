import { describe, expect, it } from 'vitest';
import { isSecretLookingName, maskAssignments, maskCredentialText, splitNameWords } from './mask-error-text.ts';

const R = '[REDACTED]';
const mask = maskCredentialText;

describe('1. private key blocks', () => {
  it('masks PEM blocks of every private key label', () => {
    for (const label of ['RSA PRIVATE KEY', 'EC PRIVATE KEY', 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'OPENSSH PRIVATE KEY']) {
      const block = `-----BEGIN ${label}-----\nMIIEow\nIBAAK\n-----END ${label}-----`;
      expect(mask(`before\n${block}\nafter`)).toBe(`before\n${R}\nafter`);
    }
  });

  it('masks a PGP private key block', () => {
    expect(mask('-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQO\n-----END PGP PRIVATE KEY BLOCK----- tail')).toBe(`${R} tail`);
  });

  it('masks an unterminated block to the end', () => {
    expect(mask('key was -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXkt\nmore')).toBe(`key was ${R}`);
  });

  it('leaves public material alone', () => {
    const cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    const pub = '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----';
    expect(mask(cert)).toBe(cert);
    expect(mask(pub)).toBe(pub);
  });
});

describe('2. URL userinfo', () => {
  it('masks user and password', () => {
    expect(mask('postgres://app:pw@db:5432/app')).toBe(`postgres://${R}@db:5432/app`);
    expect(mask('connect failed for postgres://app:cfx-fake-hunter2@db.internal:5432/app')).toBe(
      `connect failed for postgres://${R}@db.internal:5432/app`,
    );
  });

  it('masks a token-only userinfo and a password holding an unencoded @', () => {
    expect(mask('https://ghp_x@github.com/o/r')).toBe(`https://${R}@github.com/o/r`);
    expect(mask('redis://:p@ss@cache:6379')).toBe(`redis://${R}@cache:6379`);
  });

  it('leaves URLs without userinfo, and an @ after the authority, alone', () => {
    expect(mask('GET https://api.example.test:8443/v1?to=a@b.test failed')).toBe(
      'GET https://api.example.test:8443/v1?to=a@b.test failed',
    );
    expect(mask('mail bob@example.test')).toBe('mail bob@example.test');
    expect(mask('"http://host" "me@x.test"')).toBe('"http://host" "me@x.test"');
  });
});

describe('3. JSON Web Tokens', () => {
  it('masks a JWT, with or without a signature', () => {
    expect(mask('jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl end')).toBe(`jwt ${R} end`);
    expect(mask('none eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.')).toBe(`none ${R}`);
  });

  it('leaves a lone base64 segment alone', () => {
    expect(mask('payload eyJzdWIiOiIxIn0 only')).toBe('payload eyJzdWIiOiIxIn0 only');
  });
});

describe('4. provider-prefixed keys', () => {
  it.each([
    ['Stripe secret', 'sk_live_51HabcdefghijklMNOP'],
    ['Stripe test', 'sk_test_abcdefghijkl1234'],
    ['Stripe restricted', 'rk_live_abcdefghijkl1234'],
    ['Stripe webhook', 'whsec_abcdefghijklmnop1234'],
    ['Slack bot', 'xoxb-1234567890-abcdefghij'],
    ['Slack user', 'xoxp-1234567890-abcdefghij'],
    ['Slack app', 'xapp-1-A0123-1234567890'],
    ['GitHub classic', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['GitHub OAuth', 'gho_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['GitHub fine-grained', 'github_pat_11ABCDEFG0123456789_abcdefghijk'],
    ['GitLab', 'glpat-abcdefghijklmnopqrst'],
    ['AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['AWS session key id', 'ASIAIOSFODNN7EXAMPLE'],
    ['Google', 'AIzaSyA-1234567890abcdefghijklmnopqrstu'],
    ['OpenAI', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789'],
    ['OpenAI legacy', 'sk-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv'],
    ['Anthropic', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345'],
    ['npm', 'npm_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['SendGrid', 'SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789abcdefg'],
    ['Hugging Face', 'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH'],
    ['jtrace', 'jtk_ABCDEFGHIJKLMNOPQRSTUVWXYZab_-01'],
  ])('%s', (_name, key) => {
    expect(mask(`failed with ${key}.`)).toBe(`failed with ${R}.`);
    expect(mask(`(${key})`)).toBe(`(${R})`);
  });

  it('leaves prose, identifiers and look-alikes alone', () => {
    const lookAlikes = ['use sk-learn', 'sk-payments-gateway-prod', 'mask_live_abcdefghijklmnop', 'task-abcdefghijklmnopqrstuvwxyz', 'hf_model'];
    for (const text of [...lookAlikes, 'jtk_short', 'AKIA123']) {
      expect(mask(text)).toBe(text);
    }
    // A jtrace key has exactly 32 characters after the prefix.
    expect(mask(`jtk_${'a'.repeat(33)}`)).toBe(`jtk_${'a'.repeat(33)}`);
  });
});

describe('5. webhook URLs', () => {
  it('masks the secret segment of Slack webhooks', () => {
    expect(mask('POST https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXX failed')).toBe(
      `POST https://hooks.slack.com/services/T0001/B0002/${R} failed`,
    );
    const workflow = 'https://hooks.slack.com/workflows/T1/A2/345/';
    expect(mask(`${workflow}abcdef`)).toBe(`${workflow}${R}`);
  });

  it('masks the token of Discord webhooks', () => {
    expect(mask('https://discord.com/api/webhooks/123456789/abcDEF-ghi_jkl?wait=true')).toBe(
      `https://discord.com/api/webhooks/123456789/${R}?wait=true`,
    );
    expect(mask('https://discordapp.com/api/v10/webhooks/1/tok')).toBe(`https://discordapp.com/api/v10/webhooks/1/${R}`);
  });
});

describe('6. authorization schemes', () => {
  it('masks Bearer, Basic and Digest credentials of 8 or more characters', () => {
    expect(mask('Authorization: Bearer abc.def-123_456 rest')).toBe(`Authorization: Bearer ${R} rest`);
    expect(mask('sent basic dXNlcjpwYXNzd29yZA==')).toBe(`sent basic ${R}`);
    expect(mask('Digest QWxhZGRpbjpvcGVu')).toBe(`Digest ${R}`);
    expect(mask('Digest username="bob", realm="r", response="6629fae4"\nnext')).toBe(`Digest ${R}\nnext`);
  });

  it('leaves short credentials and prose alone', () => {
    const prose = ['Basic authentication failed', 'Bearer undefined', 'Digest algorithm unsupported', 'a Bearer token'];
    for (const text of ['Bearer abc1234', ...prose]) {
      expect(mask(text)).toBe(text);
    }
  });
});

describe('7. values assigned to secret-looking names', () => {
  it.each([
    ['password=hunter2 user=bob', `password=${R} user=bob`],
    ['{"api_key":"abc123","id":"x"}', `{"api_key":"${R}","id":"x"}`],
    ['DB_PASSWORD=s3cr3t; other=1', `DB_PASSWORD=${R}; other=1`],
    ['GET /x?key=AIzaabc&page=2', `GET /x?key=${R}&page=2`],
    ['GET /x?a=1&key=abc', `GET /x?a=1&key=${R}`],
    ['"token" : "abc"', `"token" : "${R}"`],
    ["password: 'quoted'", `password: '${R}'`],
    ['{\\"password\\":\\"hunter2\\",\\"x\\":1}', `{\\"password\\":\\"${R}\\",\\"x\\":1}`],
    ['"secret": 1234, "n": 1', `"secret": ${R}, "n": 1`],
    ['password="unterminated\nnext', `password="${R}\nnext`],
    ['spring.datasource.password=x', `spring.datasource.password=${R}`],
    ['--passphrase=open sesame', `--passphrase=${R} sesame`],
  ])('%j', (text, expected) => {
    expect(mask(text)).toBe(expected);
  });

  it.each([
    ['passwd'], ['pwd'], ['passphrase'], ['userSecret'], ['authToken'], ['sessionCredential'], ['GOOGLE_CREDENTIALS'],
    ['api_key'], ['apiKey'], ['secretKey'], ['private_key'], ['ACCESS_KEY'], ['accountKey'], ['signingKey'], ['masterKey'],
    ['shared-key'], ['encryptionKey'], ['authKey'], ['sessionKey'], ['clientKey'], ['SECRETKEY'], ['x-api-key'], ['Cookie'],
    ['aws_secret_access_key'], ['DBPassword'],
  ])('%s is secret-looking', (name) => {
    expect(isSecretLookingName(name)).toBe(true);
    expect(maskAssignments(`${name}=v`)).toBe(`${name}=${R}`);
  });

  it.each([
    ['token_id'], ['secretArn'], ['secret_name'], ['tokenUrl'], ['passwordUrl'], ['apiKeyId'], ['nextPageToken'],
    ['page_token'], ['continuationToken'], ['csrf_token'], ['X-CSRF-Token'], ['xsrfToken'], ['key'], ['publicKey'],
    ['monkey'], ['apiKeyRotation'],
    ['secretary'], ['tokenCount'], ['user'],
  ])('%s is not secret-looking', (name) => {
    expect(isSecretLookingName(name)).toBe(false);
    expect(maskAssignments(`${name}=v`)).toBe(`${name}=v`);
  });

  it('leaves prose after an unquoted colon alone', () => {
    for (const text of ['Invalid token: expired', 'password: too short', 'secret: not found in vault', 'token:expired']) {
      expect(mask(text)).toBe(text);
    }
  });

  it('splits names into words at separators and camel-case humps', () => {
    expect(splitNameWords('DB_PASSWORD')).toEqual(['db', 'password']);
    expect(splitNameWords('APIKey')).toEqual(['api', 'key']);
    expect(splitNameWords('nextPageToken')).toEqual(['next', 'page', 'token']);
    expect(splitNameWords('x-hub.signature_256')).toEqual(['x', 'hub', 'signature', '256']);
  });
});

describe('maskCredentialText: whole messages', () => {
  it('leaves ordinary messages and random identifiers alone (no entropy guessing)', () => {
    for (const text of [
      'Unprocessable Entity',
      'record 0018Z00002ABC not found; request id 7f3e9c2a1b4d8e6f0a5c3b2d1e9f8a7b',
      'user 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d has id=42',
      'timeout after 30000ms at 12:30:01',
    ]) {
      expect(mask(text)).toBe(text);
    }
  });

  it('combines shapes in one message', () => {
    const text = 'POST https://u:p@h/x with Bearer eyJa.eyJb.c and {"password":"p"} api_key=sk_live_abcdefghijkl';
    expect(mask(text)).toBe(`POST https://${R}@h/x with Bearer ${R} and {"password":"${R}"} api_key=${R}`);
  });
});

describe('maskCredentialText: idempotency', () => {
  const pieces = [
    'postgres://a:b@h/x', 'Bearer abcdefgh123', 'Authorization=Bearer abcdefgh123', '"Authorization": "Basic dXNlcjpw"',
    'password=[REDACTED]', 'password=x]y', 'password="a\\"b"', 'eyJa.eyJb.c', 'sk_live_abcdefghijkl', 'jtk_' + 'A'.repeat(32),
    '-----BEGIN PRIVATE KEY-----\nx', 'https://hooks.slack.com/services/T/B/secret', '?key=1&', 'token: x',
    '\\"secret\\":\\"s\\"',
    'Digest username="u"', 'x://[REDACTED]@h', 'a=b', ' ', ',', '"', "'", ':', '=', '\n', '[REDACTED]', 'api_key:"v"',
  ];

  it('is a fixed point on its own output for every piece and every pair', () => {
    for (const a of pieces) {
      for (const b of pieces) {
        for (const text of [a + b, `${a} ${b}`]) {
          const once = mask(text);
          expect(mask(once), JSON.stringify(text)).toBe(once);
        }
      }
    }
  });

  it('is a fixed point on random concatenations', () => {
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let round = 0; round < 500; round += 1) {
      let text = '';
      const count = 1 + (next() % 6);
      for (let i = 0; i < count; i += 1) text += pieces[next() % pieces.length];
      const once = mask(text);
      expect(mask(once), JSON.stringify(text)).toBe(once);
    }
  });
});

describe('maskCredentialText: linear time', () => {
  // Inputs that make backtracking or rescanning patterns quadratic; 200,000 characters each
  // (beyond the 16,384 of a stack). A quadratic pass would take minutes and trip the test
  // timeout; the figures themselves are measured by bench/mask-error-text.ts, not asserted here.
  const adversarial = [
    'eyJ'.repeat(66_000), 'eyJa.'.repeat(40_000), '://'.repeat(66_000), 'a://b'.repeat(40_000), '@'.repeat(200_000),
    'password='.repeat(22_000), 'password="'.repeat(20_000), 'Bearer '.repeat(28_000), 'sk-'.repeat(66_000),
    '-----BEGIN RSA PRIVATE KEY-----'.repeat(6_000), `hooks.slack.com/services/${'a/'.repeat(100_000)}`,
    `${'a.'.repeat(100_000)}=`, `${' '.repeat(200_000)}=`, 'token:'.repeat(33_000), '"password":'.repeat(18_000),
    'digest a='.repeat(22_000), 'SG.'.repeat(66_000), '='.repeat(200_000), 'password=[REDACTED'.repeat(11_000),
  ];

  it('masks each adversarial input, idempotently', () => {
    for (const text of adversarial) {
      const once = mask(text);
      expect(mask(once), text.slice(0, 20)).toBe(once);
    }
  });
});
