// @jtrace/node: record what happens to a record as it crosses services, without ever hurting them.
export { createRecorder, DEFAULTS, type Recorder } from './recorder.ts';
export { Journey, RESULT_FAILURE_TYPE } from './journey.ts';
export { JourneyGroup } from './across.ts';
export { queueJobMetadata, httpResponseMetadata, type QueueJob, type QueueJobOptions, type HttpResponseLike, type HttpResponseOptions } from './timing.ts';
export {
  injectHttpHeaders,
  extractHttpContext,
  injectMessageAttributes,
  extractMessageContext,
  wrapMessage,
  unwrapMessage,
  JOURNEY_HEADER,
  ENTITY_HEADER,
  PARENT_HEADER,
  ENVELOPE_KEY,
  type Propagatable,
} from './propagation.ts';
export { deriveJourneyId } from './journey-id.ts';
export { SDK_NAME, SDK_VERSION } from './version.ts';
export type * from './types.ts';
