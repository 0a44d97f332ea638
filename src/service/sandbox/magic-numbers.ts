/**
 * The sandbox operator's test numbers, like a payment sandbox's test cards: any valid number
 * whose last four digits are listed behaves as described. Every other number is accepted,
 * delivered and read.
 */
export const magicNumbers = {
  "4001": { behaviour: "refused at send", reason: "undeliverable", code: 131026 },
  "4002": { behaviour: "refused at send", reason: "spam_rate_limited", code: 131048 },
  "4003": { behaviour: "refused at send", reason: "ecosystem_engagement", code: 131049 },
  "4010": { behaviour: "delivered, never read" },
  "4011": { behaviour: "accepted, never delivered" },
} as const;

type Suffix = keyof typeof magicNumbers;

function suffixOf(phone: string): Suffix | undefined {
  const last = phone.slice(-4);
  return last in magicNumbers ? (last as Suffix) : undefined;
}

/** The refusal a number gets at send time, if it is one of the failing test numbers. */
export function refusalFor(phone: string): { reason: string; code: number } | null {
  const entry = suffixOf(phone) ? magicNumbers[suffixOf(phone) as Suffix] : undefined;
  return entry && "reason" in entry ? { reason: entry.reason, code: entry.code } : null;
}

/** Whether the sandbox reports a delivery (and then a read) for this number. */
export function reportsFor(phone: string): { delivered: boolean; read: boolean } {
  const suffix = suffixOf(phone);
  if (suffix === "4011") return { delivered: false, read: false };
  if (suffix === "4010") return { delivered: true, read: false };
  return { delivered: true, read: true };
}
