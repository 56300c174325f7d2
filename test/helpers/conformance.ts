/** The project's own copy of the contract's conformance cases (see test/conformance/README.md). */
export const CONFORMANCE_DIR = new URL('../conformance/', import.meta.url);
export const WIRE_DIR = new URL('wire/', CONFORMANCE_DIR);
export const SDK_DIR = new URL('sdk/', CONFORMANCE_DIR);
