import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A plan feature as a catalogue file gives it. */
interface Feature {
  key: string;
  name: string;
  type: "limit" | "quota";
  value: number;
}

/** A `--plans` file (in a folder of its own) whose one plan, id 1, has these features. */
export function onePlanCatalogue(...features: Feature[]): string {
  const file = join(mkdtempSync(join(tmpdir(), "reseller-plans-")), "plans.json");
  writeFileSync(
    file,
    JSON.stringify({
      currency: { code: "EUR", name: "Euro", symbol: "€" },
      plans: [{ name: "Tiny", slug: "tiny", price: 1, billing_period: "monthly", features }],
    }),
  );
  return file;
}

/** A catalogue whose one plan allows `limit` contacts. */
export function contactsLimitCatalogue(limit: number): string {
  return onePlanCatalogue({ key: "contacts", name: "Contacts", type: "limit", value: limit });
}
