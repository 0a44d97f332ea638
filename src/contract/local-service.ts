/**
 * The port a local `reseller serve` listens on unless told otherwise, and so the port of the
 * CLI's default base URL: the one value both sides must agree on without asking.
 */
export const defaultPort = 8420;
