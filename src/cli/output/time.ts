/**
 * A timestamp as people read it at a terminal: `2026-11-22 10:30 CET`, in the user's time zone
 * (TZ, else the system's), named; a dash for none. Piped and --json output keep the service's
 * UTC ISO text instead.
 */
export function when(iso: string | null, timeZone?: string): string {
  if (iso === null) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
      ...(timeZone ? { timeZone } : {}),
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.timeZoneName}`;
}
