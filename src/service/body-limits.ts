/**
 * Largest body an import takes: a 100 MB CSV grows by a third in base64, plus the envelope.
 */
export const importBodyLimitBytes = 140 * 1024 * 1024;

/**
 * Largest body of every request without a limit of its own: the largest they need (a campaign naming 10,000 contact
 * ids) is about 300 KB, and a token should not make the service parse 140 MB of anything else.
 */
export const otherBodyLimitBytes = 1024 * 1024;

/**
 * Largest body of Meta's webhook deliveries: Meta batches up to a thousand changes in one and
 * documents deliveries of up to 3 MB; a larger body is refused (413) before its signature is
 * computed.
 */
export const whatsappWebhookBodyLimitBytes = 3 * 1024 * 1024;
