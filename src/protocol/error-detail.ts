/** One problem of a refused request: the spec's `details` item (interface-spec 7, event-protocol 2.6). */
export interface ErrorDetail {
  path: string;
  message: string;
}
