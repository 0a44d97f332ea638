import { createHmac } from "node:crypto";

/** How long a receiver has to answer a delivery (and `reseller listen`'s local one a forward). */
export const deliveryTimeoutMs = 10_000;

/**
 * The Reseller-Signature header of a delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<body>" keyed with the endpoint's secret>`. The service signs deliveries with it and
 * `reseller listen` signs what it forwards, so both verify the same way (docs/webhooks.md).
 */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * The headers that make a POST a signed delivery of one event: the service's deliveries and
 * `reseller listen`'s forwards carry the same ones.
 */
export function signedDeliveryHeaders(
  secret: string,
  eventId: string,
  body: string,
  unixSeconds: number,
): Record<string, string> {
  return {
    "content-type": "application/json",
    "reseller-signature": signatureHeader(secret, unixSeconds, body),
    "reseller-event-id": eventId,
  };
}
