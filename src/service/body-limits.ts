/**
 * Largest body an import takes (and the dashboard's proxy passes on to it): a 100 MB CSV grows
 * by a third in base64, plus the envelope.
 */
export const bodyLimitBytes = 140 * 1024 * 1024;

/**
 * Largest body of every other request: the largest they need (a campaign naming 10,000 contact
 * ids) is about 300 KB, and a token should not make the service parse 140 MB of anything else.
 */
export const otherBodyLimitBytes = 1024 * 1024;
