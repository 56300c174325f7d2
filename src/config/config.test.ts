import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, LOG_LEVELS, loadConfig, type Config } from './config.ts';

// Distinctive secret values, so a leak into an error message is easy to spot.
const ADMIN = 'Adm1n-S3cret-VALUE-0123456789abcdefXYZ';
const KEY = 'Encrypt-S3cret-VALUE-0123456789abcdefghijklmn';
const OLD_KEY = 'Old-Encrypt-S3cret-VALUE-0123456789ab';
const DB = 'postgres://jtrace:pw@db.example:5432/jtrace';

type Env = Record<string, string | undefined>;

let dir: string;
let fileCounter = 0;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'jtrace-config-test-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function secretFile(content: string): string {
  fileCounter += 1;
  const file = path.join(dir, `secret-${fileCounter}`);
  writeFileSync(file, content, { mode: 0o600 });
  return file;
}

/** Loads the config expecting a ConfigError; returns it after checking it names the variable. */
function configError(env: Env, variable: string): ConfigError {
  let thrown: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a ConfigError naming ${variable}`).toBeInstanceOf(ConfigError);
  const error = thrown as ConfigError;
  expect(error.message).toContain(variable);
  expect(error.variable).toBe(variable);
  return error;
}

function expectNoSecret(error: Error, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(error.message).not.toContain(secret);
    expect(String(error)).not.toContain(secret);
    expect(error.stack ?? '').not.toContain(secret);
  }
}

describe('loadConfig defaults', () => {
  it('gives every variable its documented default when the environment is empty', () => {
    const config = loadConfig({});
    const expected: Config = {
      roles: ['api', 'ingest', 'worker'],
      databaseUrl: null,
      databaseReadUrl: null,
      readReplicaMaxLagMs: 1000,
      host: '127.0.0.1',
      port: 8080,
      metricsHost: '127.0.0.1',
      metricsPort: null,
      adminToken: null,
      encryptionKey: null,
      encryptionKeyPrevious: null,
      defaultRetentionDays: 30,
      statementTimeoutMs: 15_000,
      poolMax: 10,
      maxEventPayloadBytes: 262_144,
      allowFullPayloadCapture: false,
      replayAllowedHosts: null,
      trustedProxyCount: 0,
      retentionSweepIntervalMs: 3_600_000,
      auditRetentionDays: 365,
      logLevel: 'info',
      ingestCoalesceMaxWaitMs: 0,
      ingestCoalesceMaxEvents: 100,
      findingsAnalyzerEnabled: true,
      findingsAnalyzerBusyShare: 0.25,
      alertAllowedHosts: null,
      otlpEnabled: false,
      otlpMaxRequestBytes: 4_194_304,
      publicOrigin: null,
      embeddedPgPort: 54329,
      dataDir: '.data',
      sessionIdleMinutes: 720,
      sessionMaxHours: 168,
      oidc: null,
    };
    expect(config).toEqual(expected);
  });

  it('reads every variable when set', () => {
    const config = loadConfig({
      DATABASE_URL: DB,
      DATABASE_READ_URL: 'postgres://reader@replica:5433/jtrace',
      READ_REPLICA_MAX_LAG_MS: '250',
      HOST: '0.0.0.0',
      PORT: '9000',
      METRICS_HOST: '10.0.0.5',
      METRICS_PORT: '9464',
      ADMIN_TOKEN: ADMIN,
      ENCRYPTION_KEY: KEY,
      ENCRYPTION_KEY_PREVIOUS: OLD_KEY,
      DEFAULT_RETENTION_DAYS: '7',
      DATABASE_STATEMENT_TIMEOUT_MS: '2500',
      DATABASE_POOL_MAX: '20',
      MAX_EVENT_PAYLOAD_BYTES: '4096',
      ALLOW_FULL_PAYLOAD_CAPTURE: 'true',
      REPLAY_ALLOWED_HOSTS: 'staging.example.com',
      TRUSTED_PROXY_COUNT: '2',
      RETENTION_SWEEP_INTERVAL_MS: '60000',
      AUDIT_RETENTION_DAYS: '0',
      LOG_LEVEL: 'debug',
      OTLP_ENABLED: 'true',
      OTLP_MAX_REQUEST_BYTES: '65536',
      INGEST_COALESCE_MAX_WAIT_MS: '5',
      INGEST_COALESCE_MAX_EVENTS: '32',
      FINDINGS_ANALYZER_ENABLED: 'false',
      FINDINGS_ANALYZER_BUSY_SHARE: '0.5',
      JTRACE_ROLES: ' worker, API ',
      ALERT_ALLOWED_HOSTS: 'Hooks.Example.com, alerts.example.com',
      PUBLIC_URL: 'https://JTrace.Example.com:443/',
      EMBEDDED_PG_PORT: '54400',
      JTRACE_DATA_DIR: '/var/lib/jtrace',
      SESSION_IDLE_MINUTES: '30',
      SESSION_MAX_HOURS: '24',
    });
    expect(config).toEqual({
      roles: ['api', 'worker'],
      databaseUrl: DB,
      databaseReadUrl: 'postgres://reader@replica:5433/jtrace',
      readReplicaMaxLagMs: 250,
      host: '0.0.0.0',
      port: 9000,
      metricsHost: '10.0.0.5',
      metricsPort: 9464,
      adminToken: ADMIN,
      encryptionKey: KEY,
      encryptionKeyPrevious: OLD_KEY,
      defaultRetentionDays: 7,
      statementTimeoutMs: 2500,
      poolMax: 20,
      maxEventPayloadBytes: 4096,
      allowFullPayloadCapture: true,
      replayAllowedHosts: ['staging.example.com'],
      trustedProxyCount: 2,
      retentionSweepIntervalMs: 60_000,
      auditRetentionDays: 0,
      logLevel: 'debug',
      otlpEnabled: true,
      otlpMaxRequestBytes: 65_536,
      ingestCoalesceMaxWaitMs: 5,
      ingestCoalesceMaxEvents: 32,
      findingsAnalyzerEnabled: false,
      findingsAnalyzerBusyShare: 0.5,
      alertAllowedHosts: ['hooks.example.com', 'alerts.example.com'],
      publicOrigin: 'https://jtrace.example.com',
      embeddedPgPort: 54400,
      dataDir: '/var/lib/jtrace',
      sessionIdleMinutes: 30,
      sessionMaxHours: 24,
      oidc: null,
    } satisfies Config);
  });

  it('treats a blank value as unset, for every variable', () => {
    const names = [
      'DATABASE_URL',
      'DATABASE_READ_URL',
      'READ_REPLICA_MAX_LAG_MS',
      'HOST',
      'PORT',
      'METRICS_HOST',
      'METRICS_PORT',
      'ADMIN_TOKEN',
      'ADMIN_TOKEN_FILE',
      'ENCRYPTION_KEY',
      'ENCRYPTION_KEY_FILE',
      'ENCRYPTION_KEY_PREVIOUS',
      'ENCRYPTION_KEY_PREVIOUS_FILE',
      'DEFAULT_RETENTION_DAYS',
      'DATABASE_STATEMENT_TIMEOUT_MS',
      'DATABASE_POOL_MAX',
      'MAX_EVENT_PAYLOAD_BYTES',
      'ALLOW_FULL_PAYLOAD_CAPTURE',
      'REPLAY_ALLOWED_HOSTS',
      'TRUSTED_PROXY_COUNT',
      'RETENTION_SWEEP_INTERVAL_MS',
      'LOG_LEVEL',
      'OTLP_ENABLED',
      'OTLP_MAX_REQUEST_BYTES',
      'FINDINGS_ANALYZER_ENABLED',
      'FINDINGS_ANALYZER_BUSY_SHARE',
      'JTRACE_ROLES',
      'INGEST_COALESCE_MAX_WAIT_MS',
      'INGEST_COALESCE_MAX_EVENTS',
      'ALERT_ALLOWED_HOSTS',
      'PUBLIC_URL',
      'EMBEDDED_PG_PORT',
      'JTRACE_DATA_DIR',
    ];
    for (const blank of ['', '   ', '\t\n']) {
      const env = Object.fromEntries(names.map((name) => [name, blank]));
      expect(loadConfig(env), `blank value ${JSON.stringify(blank)}`).toEqual(loadConfig({}));
    }
  });

  it.each(['api,reader', ',', 'api;worker'])('refuses JTRACE_ROLES=%j, naming the variable and the roles', (value) => {
    expect(() => loadConfig({ JTRACE_ROLES: value })).toThrow(/^JTRACE_ROLES: must be a comma-separated list of api, ingest, worker/);
  });

  it('treats an undefined entry as unset', () => {
    expect(loadConfig({ PORT: undefined, ADMIN_TOKEN: undefined })).toEqual(loadConfig({}));
  });
});

describe('PUBLIC_URL', () => {
  it('is kept as its origin: lower case, default port dropped, an explicit one kept', () => {
    expect(loadConfig({ PUBLIC_URL: 'http://10.0.0.5:8080' }).publicOrigin).toBe('http://10.0.0.5:8080');
    expect(loadConfig({ PUBLIC_URL: ' HTTPS://Jtrace.Example.COM ' }).publicOrigin).toBe('https://jtrace.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://[::1]:80/' }).publicOrigin).toBe('http://[::1]');
  });

  it.each([
    'jtrace.example.com',
    'ftp://jtrace.example.com',
    'https://',
    'https://jtrace.example.com/ui/',
    'https://jtrace.example.com/?a=1',
    'https://jtrace.example.com/#top',
    'https://user:pass@jtrace.example.com',
    'https://jtrace.example.com:99999',
  ])('refuses %s, naming PUBLIC_URL and the expected form', (value) => {
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(ConfigError);
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/^PUBLIC_URL: .*https:\/\/jtrace\.example\.com/);
  });
});

describe('loadConfig integers and ports', () => {
  it('accepts white space around a number', () => {
    expect(loadConfig({ PORT: ' 8081 ' }).port).toBe(8081);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '80.5'],
    ['PORT', '1e3'],
    ['PORT', '0x50'],
    ['PORT', '+80'],
    ['PORT', '-1'],
    ['PORT', '0'],
    ['PORT', '65536'],
    ['PORT', '8080abc'],
    ['METRICS_PORT', '0'],
    ['METRICS_PORT', '70000'],
    ['METRICS_PORT', 'nine'],
    ['DEFAULT_RETENTION_DAYS', '0'],
    ['DEFAULT_RETENTION_DAYS', '1.5'],
    ['DEFAULT_RETENTION_DAYS', 'thirty'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-5'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '15s'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '99999999999999999999'],
    ['DATABASE_POOL_MAX', '0'],
    ['DATABASE_POOL_MAX', 'ten'],
    ['MAX_EVENT_PAYLOAD_BYTES', '1023'],
    ['MAX_EVENT_PAYLOAD_BYTES', '1048577'],
    ['MAX_EVENT_PAYLOAD_BYTES', '256k'],
    ['TRUSTED_PROXY_COUNT', '-1'],
    ['TRUSTED_PROXY_COUNT', 'one'],
    ['TRUSTED_PROXY_COUNT', '1.0'],
    ['RETENTION_SWEEP_INTERVAL_MS', 'hourly'],
    ['AUDIT_RETENTION_DAYS', '-1'],
    ['AUDIT_RETENTION_DAYS', '36501'],
    ['AUDIT_RETENTION_DAYS', 'forever'],
    ['OTLP_MAX_REQUEST_BYTES', '1023'],
    ['OTLP_MAX_REQUEST_BYTES', '67108865'],
    ['OTLP_MAX_REQUEST_BYTES', '4MiB'],
    ['OTLP_ENABLED', 'yes'],
    ['EMBEDDED_PG_PORT', '0'],
    ['EMBEDDED_PG_PORT', '65536'],
    ['EMBEDDED_PG_PORT', 'auto'],
    ['INGEST_COALESCE_MAX_WAIT_MS', '-1'],
    ['INGEST_COALESCE_MAX_WAIT_MS', '1001'],
    ['INGEST_COALESCE_MAX_WAIT_MS', '2.5'],
    ['INGEST_COALESCE_MAX_EVENTS', '101'],
    ['INGEST_COALESCE_MAX_EVENTS', 'many'],
    ['FINDINGS_ANALYZER_BUSY_SHARE', '0.01'],
    ['FINDINGS_ANALYZER_BUSY_SHARE', '1.5'],
    ['FINDINGS_ANALYZER_BUSY_SHARE', '25%'],
  ])('refuses %s=%s with a ConfigError naming the variable', (name, value) => {
    configError({ [name]: value }, name);
  });

  it('accepts the boundaries of the port range', () => {
    expect(loadConfig({ PORT: '1' }).port).toBe(1);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
    expect(loadConfig({ METRICS_PORT: '1' }).metricsPort).toBe(1);
    expect(loadConfig({ METRICS_PORT: '65535' }).metricsPort).toBe(65535);
  });

  it('accepts 0 (coalescing off) up to the bounds of the single-event coalescing knobs', () => {
    expect(loadConfig({ INGEST_COALESCE_MAX_WAIT_MS: '0', INGEST_COALESCE_MAX_EVENTS: '0' })).toMatchObject({ ingestCoalesceMaxWaitMs: 0, ingestCoalesceMaxEvents: 0 });
    expect(loadConfig({ INGEST_COALESCE_MAX_WAIT_MS: '1000', INGEST_COALESCE_MAX_EVENTS: '100' })).toMatchObject({ ingestCoalesceMaxWaitMs: 1000, ingestCoalesceMaxEvents: 100 });
  });

  it('accepts OTLP_MAX_REQUEST_BYTES from 1,024 to 64 MiB', () => {
    expect(loadConfig({ OTLP_MAX_REQUEST_BYTES: '1024' }).otlpMaxRequestBytes).toBe(1024);
    expect(loadConfig({ OTLP_MAX_REQUEST_BYTES: '67108864' }).otlpMaxRequestBytes).toBe(67_108_864);
  });

  it('accepts MAX_EVENT_PAYLOAD_BYTES from 1,024 to 1,048,576', () => {
    expect(loadConfig({ MAX_EVENT_PAYLOAD_BYTES: '1024' }).maxEventPayloadBytes).toBe(1024);
    expect(loadConfig({ MAX_EVENT_PAYLOAD_BYTES: '1048576' }).maxEventPayloadBytes).toBe(1_048_576);
  });

  it('accepts DATABASE_STATEMENT_TIMEOUT_MS=0 (disabled)', () => {
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).statementTimeoutMs).toBe(0);
  });

  it('accepts TRUSTED_PROXY_COUNT=0 and 1', () => {
    expect(loadConfig({ TRUSTED_PROXY_COUNT: '0' }).trustedProxyCount).toBe(0);
    expect(loadConfig({ TRUSTED_PROXY_COUNT: '1' }).trustedProxyCount).toBe(1);
  });
});

describe('loadConfig booleans, log level, database URL', () => {
  it('reads ALLOW_FULL_PAYLOAD_CAPTURE as true or false only', () => {
    expect(loadConfig({ ALLOW_FULL_PAYLOAD_CAPTURE: 'true' }).allowFullPayloadCapture).toBe(true);
    expect(loadConfig({ ALLOW_FULL_PAYLOAD_CAPTURE: 'false' }).allowFullPayloadCapture).toBe(false);
    for (const value of ['yes', 'no', '1', '0', 'on', 'truee']) {
      configError({ ALLOW_FULL_PAYLOAD_CAPTURE: value }, 'ALLOW_FULL_PAYLOAD_CAPTURE');
    }
  });

  it('accepts every log level and refuses others', () => {
    for (const level of LOG_LEVELS) {
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
    for (const value of ['verbose', 'warning', 'information', '10']) {
      configError({ LOG_LEVEL: value }, 'LOG_LEVEL');
    }
  });

  it('refuses a DATABASE_URL that is not a postgres URL, without quoting its password', () => {
    const error = configError(
      { DATABASE_URL: 'mysql://user:hunter2-password@db/x', ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: KEY },
      'DATABASE_URL',
    );
    expectNoSecret(error, 'hunter2-password');
  });

  it('refuses a DATABASE_READ_URL that is not a postgres URL, without quoting its password', () => {
    const error = configError(
      { DATABASE_URL: DB, DATABASE_READ_URL: 'http://user:hunter2-password@replica/x', ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: KEY },
      'DATABASE_READ_URL',
    );
    expectNoSecret(error, 'hunter2-password');
  });

  it('refuses DATABASE_READ_URL without DATABASE_URL: the embedded database has no replica', () => {
    const error = configError({ DATABASE_READ_URL: 'postgres://reader@replica/jtrace' }, 'DATABASE_READ_URL');
    expect(error.message).toMatch(/DATABASE_URL/);
  });

  it.each(['-1', '-500', '1.5', 'soon', '3600001'])('refuses READ_REPLICA_MAX_LAG_MS=%j, naming the variable', (value) => {
    const error = configError({ READ_REPLICA_MAX_LAG_MS: value }, 'READ_REPLICA_MAX_LAG_MS');
    expect(error.message).toMatch(/whole number from 0 to 3600000/);
  });

  it('accepts READ_REPLICA_MAX_LAG_MS=0: only a replica that has replayed everything is read', () => {
    expect(loadConfig({ READ_REPLICA_MAX_LAG_MS: '0' }).readReplicaMaxLagMs).toBe(0);
  });

  it('accepts postgres:// and postgresql:// URLs', () => {
    const env = { ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: KEY };
    expect(loadConfig({ ...env, DATABASE_URL: DB }).databaseUrl).toBe(DB);
    expect(loadConfig({ ...env, DATABASE_URL: 'postgresql://a@b/c' }).databaseUrl).toBe('postgresql://a@b/c');
  });
});

describe('loadConfig ADMIN_TOKEN', () => {
  it('refuses a token shorter than 32 characters after trimming, without quoting it', () => {
    const short = 'Short-S3cret-0123456789abcdefghi'.slice(0, 31);
    expect(short).toHaveLength(31);
    const error = configError({ ADMIN_TOKEN: `   ${short}   ` }, 'ADMIN_TOKEN');
    expectNoSecret(error, short);
  });

  it('accepts exactly 32 characters', () => {
    const token = 'Exactly-32-S3cret-0123456789abcd';
    expect(token).toHaveLength(32);
    expect(loadConfig({ ADMIN_TOKEN: token }).adminToken).toBe(token);
  });

  it('trims surrounding white space', () => {
    expect(loadConfig({ ADMIN_TOKEN: ` \t${ADMIN}\n ` }).adminToken).toBe(ADMIN);
  });

  it('keeps inner white space', () => {
    const token = 'inner white space 0123456789 abcdef';
    expect(loadConfig({ ADMIN_TOKEN: token }).adminToken).toBe(token);
  });
});

describe('loadConfig ADMIN_TOKEN entropy', () => {
  it.each([
    ['32 identical characters', 'x'.repeat(32)],
    ['a pattern of 7 different characters', 'abcdefg'.repeat(6)],
    ['a 16-character pattern written twice', 'Adm1n-S3cret-VAL'.repeat(2)],
    ['a 12-character pattern written three times, space-separated', 'token-0123ab '.repeat(3)],
  ])('refuses %s as too little entropy, without quoting it', (_label, token) => {
    const error = configError({ ADMIN_TOKEN: token }, 'ADMIN_TOKEN');
    expect(error.message).toContain('too little entropy');
    expectNoSecret(error, token);
  });

  it('applies the rule to ADMIN_TOKEN_FILE and with DATABASE_URL', () => {
    configError({ ADMIN_TOKEN_FILE: secretFile(`${'z'.repeat(40)}\n`) }, 'ADMIN_TOKEN');
    configError({ DATABASE_URL: DB, ADMIN_TOKEN: '0123456789abcdef'.repeat(2), ENCRYPTION_KEY: KEY }, 'ADMIN_TOKEN');
  });

  it('accepts the generated forms: 32 hex characters, 64 base64 characters', () => {
    for (const token of ['9f86d081884c7d659a2feaa0c55ad015', 'q3Vx1Z0pLm9Ab7Rk2Yt8Wn4Jc6Hd5Gf1Es0Du7Ci3BXy5Tr2Pw8Qe4Lk6Mj0Nh9Gv']) {
      expect(loadConfig({ ADMIN_TOKEN: token }).adminToken).toBe(token);
    }
  });
});

describe('loadConfig _FILE secrets', () => {
  it('reads ADMIN_TOKEN_FILE, ENCRYPTION_KEY_FILE and ENCRYPTION_KEY_PREVIOUS_FILE, trimmed', () => {
    const config = loadConfig({
      DATABASE_URL: DB,
      ADMIN_TOKEN_FILE: secretFile(`  ${ADMIN}\n`),
      ENCRYPTION_KEY_FILE: secretFile(`\n${KEY}\r\n`),
      ENCRYPTION_KEY_PREVIOUS_FILE: secretFile(`${OLD_KEY}\n\n`),
    });
    expect(config.adminToken).toBe(ADMIN);
    expect(config.encryptionKey).toBe(KEY);
    expect(config.encryptionKeyPrevious).toBe(OLD_KEY);
  });

  it('applies the length rule to a token read from a file', () => {
    const error = configError({ ADMIN_TOKEN_FILE: secretFile(' short-token-S3cret \n') }, 'ADMIN_TOKEN');
    expectNoSecret(error, 'short-token-S3cret');
  });

  it.each(['ADMIN_TOKEN', 'ENCRYPTION_KEY', 'ENCRYPTION_KEY_PREVIOUS'])(
    'refuses both %s and its _FILE, without quoting either secret',
    (name) => {
      const fileSecret = 'File-S3cret-VALUE-0123456789abcdefghij';
      const directSecret = name === 'ENCRYPTION_KEY_PREVIOUS' ? OLD_KEY : name === 'ADMIN_TOKEN' ? ADMIN : KEY;
      const error = configError({ [name]: directSecret, [`${name}_FILE`]: secretFile(fileSecret) }, name);
      expect(error.message).toContain(`${name}_FILE`);
      expectNoSecret(error, fileSecret, directSecret);
    },
  );

  it.each(['ADMIN_TOKEN', 'ENCRYPTION_KEY'])('refuses an empty %s_FILE', (name) => {
    configError({ [`${name}_FILE`]: secretFile('') }, `${name}_FILE`);
    configError({ [`${name}_FILE`]: secretFile('  \n\t\n') }, `${name}_FILE`);
  });

  it.each(['ADMIN_TOKEN', 'ENCRYPTION_KEY', 'ENCRYPTION_KEY_PREVIOUS'])('refuses an unreadable %s_FILE', (name) => {
    // A path that does not exist, and a directory.
    configError({ [`${name}_FILE`]: path.join(dir, 'does-not-exist') }, `${name}_FILE`);
    configError({ [`${name}_FILE`]: dir }, `${name}_FILE`);
  });

  it('refuses a file without read permission (skipped as root, who can read anything)', () => {
    if (process.getuid?.() === 0) return;
    const file = secretFile(ADMIN);
    chmodSync(file, 0o000);
    try {
      const error = configError({ ADMIN_TOKEN_FILE: file }, 'ADMIN_TOKEN_FILE');
      expectNoSecret(error, ADMIN);
    } finally {
      chmodSync(file, 0o600);
    }
  });

  it('an unreadable-file error does not quote the file content or the secret', () => {
    const error = configError({ ENCRYPTION_KEY_FILE: path.join(dir, 'missing') }, 'ENCRYPTION_KEY_FILE');
    expectNoSecret(error, KEY);
  });
});

describe('loadConfig secrets with DATABASE_URL', () => {
  it('refuses a missing ADMIN_TOKEN', () => {
    const error = configError({ DATABASE_URL: DB, ENCRYPTION_KEY: KEY }, 'ADMIN_TOKEN');
    expectNoSecret(error, KEY);
  });

  it('refuses a missing ENCRYPTION_KEY', () => {
    const error = configError({ DATABASE_URL: DB, ADMIN_TOKEN: ADMIN }, 'ENCRYPTION_KEY');
    expectNoSecret(error, ADMIN);
  });

  it('refuses a blank ADMIN_TOKEN or ENCRYPTION_KEY as missing', () => {
    configError({ DATABASE_URL: DB, ADMIN_TOKEN: '   ', ENCRYPTION_KEY: KEY }, 'ADMIN_TOKEN');
    configError({ DATABASE_URL: DB, ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: '  ' }, 'ENCRYPTION_KEY');
  });

  it('refuses a short ADMIN_TOKEN', () => {
    configError({ DATABASE_URL: DB, ADMIN_TOKEN: 'a'.repeat(31), ENCRYPTION_KEY: KEY }, 'ADMIN_TOKEN');
  });

  it('allows missing secrets without DATABASE_URL (embedded mode generates them)', () => {
    const config = loadConfig({});
    expect(config.adminToken).toBeNull();
    expect(config.encryptionKey).toBeNull();
  });
});

describe('loadConfig encryption key rotation', () => {
  it('refuses identical ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS without quoting the key', () => {
    const error = configError({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: KEY }, 'ENCRYPTION_KEY_PREVIOUS');
    expectNoSecret(error, KEY);
  });

  it('compares the keys after trimming', () => {
    configError({ ENCRYPTION_KEY: ` ${KEY}`, ENCRYPTION_KEY_PREVIOUS: `${KEY}\n` }, 'ENCRYPTION_KEY_PREVIOUS');
  });

  it('refuses identical keys given through files', () => {
    configError(
      { ENCRYPTION_KEY_FILE: secretFile(KEY), ENCRYPTION_KEY_PREVIOUS_FILE: secretFile(`${KEY}\n`) },
      'ENCRYPTION_KEY_PREVIOUS',
    );
  });

  it('reads an empty previous key as no rotation', () => {
    expect(loadConfig({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: '' }).encryptionKeyPrevious).toBeNull();
    expect(loadConfig({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: '   ' }).encryptionKeyPrevious).toBeNull();
    expect(
      loadConfig({ DATABASE_URL: DB, ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: '' })
        .encryptionKeyPrevious,
    ).toBeNull();
  });

  it('trims ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS', () => {
    const config = loadConfig({ ENCRYPTION_KEY: `  ${KEY}\n`, ENCRYPTION_KEY_PREVIOUS: `\t${OLD_KEY} ` });
    expect(config.encryptionKey).toBe(KEY);
    expect(config.encryptionKeyPrevious).toBe(OLD_KEY);
  });
});

describe('loadConfig REPLAY_ALLOWED_HOSTS', () => {
  it('is null (not configured) when unset or blank', () => {
    expect(loadConfig({}).replayAllowedHosts).toBeNull();
    expect(loadConfig({ REPLAY_ALLOWED_HOSTS: '  ' }).replayAllowedHosts).toBeNull();
  });

  it('splits on commas, trims, lower-cases and drops empty entries', () => {
    expect(
      loadConfig({ REPLAY_ALLOWED_HOSTS: ' Staging.Example.COM ,localhost,, 127.0.0.1 ,' }).replayAllowedHosts,
    ).toEqual(['staging.example.com', 'localhost', '127.0.0.1']);
  });

  it('gives an empty list (every replay blocked) when only separators are set', () => {
    expect(loadConfig({ REPLAY_ALLOWED_HOSTS: ', ,' }).replayAllowedHosts).toEqual([]);
  });
});

describe('ConfigError', () => {
  it('is an Error with the variable in its name field and message', () => {
    const error = new ConfigError('PORT', 'must be a number');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConfigError');
    expect(error.variable).toBe('PORT');
    expect(error.message).toBe('PORT: must be a number');
  });

  it('never quotes a secret in any refusal of this suite', () => {
    // A sweep over refusals that involve every secret at once.
    const envs: Env[] = [
      { DATABASE_URL: DB, ADMIN_TOKEN: 'S3cret-short', ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: OLD_KEY },
      { DATABASE_URL: DB, ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: KEY },
      { DATABASE_URL: DB, ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: OLD_KEY, PORT: 'x' },
      { DATABASE_URL: DB, ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: KEY, LOG_LEVEL: 'loud' },
      { ADMIN_TOKEN: ADMIN, ADMIN_TOKEN_FILE: secretFile(ADMIN), ENCRYPTION_KEY: KEY },
    ];
    for (const env of envs) {
      let thrown: unknown;
      try {
        loadConfig(env);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expectNoSecret(thrown as Error, ADMIN, KEY, OLD_KEY, 'S3cret-short');
    }
  });
});

describe('loadConfig ENCRYPTION_KEY strength (at least 256 bits of material)', () => {
  const hex64 = '6b7d1d7f7a15ed2660cb5a64532da16ece715a1e4d1c2ebcb63cc6b61f020596';
  const base64 = 'q3Vx1Z0pLm9Ab7Rk2Yt8Wn4Jc6Hd5Gf1Es0Du7Ci3BX=';
  const base64url43 = 'q3Vx1Z0pLm9Ab7Rk2Yt8Wn4Jc6Hd5Gf1Es0Du7Ci3BX';
  const passphrase = 'correct horse: battery staple!';

  it.each([
    ['64 hex characters', hex64],
    ['44 base64 characters', base64],
    ['43 base64url characters (32 random bytes, unpadded)', base64url43],
    ['32 bytes of other text', `${passphrase}??`],
    ['the generated form of embedded mode', 'Yl9ck3mWq0pT2vXr7uZsA1bN4cD6eF8gH0iJ2kL4mN6'],
  ])('accepts %s', (_label, key) => {
    expect(loadConfig({ ENCRYPTION_KEY: key }).encryptionKey).toBe(key);
  });

  it.each([
    ['a single character', 'a'],
    ['63 hex characters', hex64.slice(0, 63)],
    ['a long run of one hex digit', 'a'.repeat(128)],
    ['42 base64 characters', base64url43.slice(0, 42)],
    ['31 bytes of other text', `${passphrase}?`],
    ['a repeated filler', 'ab'.repeat(40)],
  ])('refuses %s, naming the variable and the accepted forms, without quoting it', (_label, key) => {
    const error = configError({ ENCRYPTION_KEY: key }, 'ENCRYPTION_KEY');
    expect(error.message).toContain('256 bits');
    expect(error.message).toContain('64 hex characters');
    if (key.length > 3) expectNoSecret(error, key);
  });

  it('applies the rule to ENCRYPTION_KEY_FILE and with DATABASE_URL', () => {
    configError({ ENCRYPTION_KEY_FILE: secretFile('short-key\n') }, 'ENCRYPTION_KEY');
    configError({ DATABASE_URL: DB, ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: 'weak' }, 'ENCRYPTION_KEY');
  });

  it.each([
    ['a 16-character hex pattern written four times', 'c0ffee0123456789'.repeat(4)],
    ['a 16-character base64 pattern written three times', 'q3Vx1Z0pLm9Ab7Rk'.repeat(3)],
    ['a passphrase written twice', 'correct horse: battery staple! '.repeat(2)],
    ['48 random hex characters with 16 of them written again', `db0cc7303aa9ee9d08daa4734701ae30b097d3d6883d5b11${'08daa4734701ae30'}`],
  ])('refuses %s as too little entropy, without quoting it', (_label, key) => {
    const error = configError({ ENCRYPTION_KEY: key }, 'ENCRYPTION_KEY');
    expect(error.message).toContain('too little entropy');
    expect(error.message).toContain('the same 10 characters occur twice');
    expect(error.message).toContain('ENCRYPTION_KEY_PREVIOUS');
    expectNoSecret(error, key);
  });

  it('accepts a weak ENCRYPTION_KEY_PREVIOUS: keeping it readable is how data leaves it', () => {
    expect(loadConfig({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_PREVIOUS: 'a' }).encryptionKeyPrevious).toBe('a');
  });
});

describe('loadConfig sessions and single sign-on', () => {
  it('bounds SESSION_IDLE_MINUTES and SESSION_MAX_HOURS', () => {
    configError({ SESSION_IDLE_MINUTES: '0' }, 'SESSION_IDLE_MINUTES');
    configError({ SESSION_MAX_HOURS: '8761' }, 'SESSION_MAX_HOURS');
    expect(loadConfig({ SESSION_IDLE_MINUTES: '525600', SESSION_MAX_HOURS: '1' })).toMatchObject({ sessionIdleMinutes: 525_600, sessionMaxHours: 1 });
  });

  it('turns single sign-on on with OIDC_ISSUER and then requires the client and the redirect URL', () => {
    const full = {
      OIDC_ISSUER: 'https://accounts.google.com',
      OIDC_CLIENT_ID: 'jtrace',
      OIDC_CLIENT_SECRET: ' client-secret-value ',
      OIDC_REDIRECT_URL: 'https://jtrace.example.com/ui/api/oidc/callback',
      OIDC_ALLOWED_DOMAINS: 'Example.com, example.org,',
      OIDC_DEFAULT_ROLE: 'operator',
      OIDC_DEFAULT_PROJECTS: 'shop,billing',
    };
    expect(loadConfig(full).oidc).toEqual({
      issuer: 'https://accounts.google.com',
      clientId: 'jtrace',
      clientSecret: 'client-secret-value',
      redirectUrl: 'https://jtrace.example.com/ui/api/oidc/callback',
      allowedDomains: ['example.com', 'example.org'],
      defaultRole: 'operator',
      defaultProjects: ['shop', 'billing'],
    });
    expect(loadConfig({ ...full, OIDC_ISSUER: ' ' }).oidc).toBeNull();
    configError({ ...full, OIDC_CLIENT_ID: '' }, 'OIDC_CLIENT_ID');
    expectNoSecret(configError({ ...full, OIDC_CLIENT_SECRET: undefined }, 'OIDC_CLIENT_SECRET'), 'client-secret-value');
    configError({ ...full, OIDC_CLIENT_SECRET_FILE: secretFile('x') }, 'OIDC_CLIENT_SECRET');
    expect(loadConfig({ ...full, OIDC_CLIENT_SECRET: undefined, OIDC_CLIENT_SECRET_FILE: secretFile('from-a-file\n') }).oidc?.clientSecret).toBe('from-a-file');
    configError({ ...full, OIDC_REDIRECT_URL: undefined }, 'OIDC_REDIRECT_URL');
    configError({ ...full, OIDC_ISSUER: 'ftp://idp.example.com' }, 'OIDC_ISSUER');
    configError({ ...full, OIDC_DEFAULT_ROLE: 'owner' }, 'OIDC_DEFAULT_ROLE');
  });
});
