/**
 * The sandbox operator's test numbers, like a payment sandbox's test cards: any valid number
 * whose last four digits are listed behaves as described. Every other number is accepted,
 * delivered and read.
 */
export const magicNumbers = {
  "4001": { behaviour: "refused at send", reason: "undeliverable", code: 131026 },
  "4002": { behaviour: "refused at send", reason: "spam_rate_limited", code: 131048 },
  "4003": { behaviour: "refused at send", reason: "marketing_limit", code: 131049 },
  "4004": {
    behaviour: "throughput error (130429) at the first attempt, then accepted",
    code: 130429,
  },
  "4005": {
    behaviour: "pair-rate error (131056) at the first attempt, then accepted",
    code: 131056,
  },
  "4006": { behaviour: "template paused (132015): the campaign fails", code: 132015 },
  "4007": {
    behaviour: "user stopped marketing (131050): fails, and the contact is opted out",
    code: 131050,
  },
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

/**
 * The Graph error code a number's send meets (the new outcomes, which the sandbox maps exactly
 * as the Cloud API adapter maps Meta's answers), and whether only the first attempt meets it.
 */
export function graphErrorFor(phone: string): { code: number; firstAttemptOnly: boolean } | null {
  const suffix = suffixOf(phone);
  if (suffix === "4004" || suffix === "4005") {
    return { code: magicNumbers[suffix].code, firstAttemptOnly: true };
  }
  if (suffix === "4006" || suffix === "4007") {
    return { code: magicNumbers[suffix].code, firstAttemptOnly: false };
  }
  return null;
}

/** Whether the sandbox reports a delivery (and then a read) for this number. */
export function reportsFor(phone: string): { delivered: boolean; read: boolean } {
  const suffix = suffixOf(phone);
  if (suffix === "4011") return { delivered: false, read: false };
  if (suffix === "4010") return { delivered: true, read: false };
  return { delivered: true, read: true };
}
