// The one door to the server's protocol kernel (src/protocol): redaction, secret names, rule
// grammar, header shapes, error-text masking and limits come from the same code the server runs,
// so the SDK and the server can never disagree. The build bundles them into dist/, so the published package does
// not reach into the repository's src/.
export {
  MAX_BATCH_EVENTS,
  MAX_DEPTH,
  MAX_WIDTH,
  MAX_STRING_UNITS,
  DEFAULT_MAX_EVENT_PAYLOAD_BYTES,
  DEPLOYMENT_FIELD_LENGTHS,
  MIN_MAX_EVENT_PAYLOAD_BYTES,
  MAX_MAX_EVENT_PAYLOAD_BYTES,
  MAX_DURATION_MS,
  EVENT_FIELD_LENGTHS,
  ENTITY_FIELD_LENGTHS,
  ERROR_FIELD_LENGTHS,
  ALIAS_TYPE_LENGTH,
  ALIAS_VALUE_LENGTH,
  MAX_DISPLAYABLE_ALIASES,
  METADATA_KEY_LENGTH,
  PROTOCOL_VERSION,
} from '../../../src/protocol/limits.ts';
export { createInPlaceRedactor, createRedactor, REDACTED } from '../../../src/protocol/redaction/redact.ts';
export { compileRules, isValidRedactionRule } from '../../../src/protocol/redaction/operator-rules.ts';
export { BUILT_IN_SECRET_NAMES, isBuiltInSecretName } from '../../../src/protocol/redaction/secret-names.ts';
export { maskCredentialText, isSecretLookingName } from '../../../src/protocol/redaction/mask-error-text.ts';
export { isWellFormedText } from '../../../src/protocol/identifiers.ts';
export { setOwn } from '../../../src/protocol/own-keys.ts';
export {
  PEER_ATTRIBUTES,
  PEER_ENVELOPE_DATA_KEY,
  PEER_ENVELOPE_FIELDS,
  PEER_ENVELOPE_KEY,
  PEER_HEADERS,
  isPeerValue,
  readPeerContext,
} from '../../../src/protocol/peer-propagation.ts';
