/**
 * Reads Retry-After as seconds (numeric or HTTP date); null when absent or unreadable. The CLI's
 * client and the dashboard's stream, which reads the API, both wait as the service says.
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now(),
): number | null {
  if (value === undefined || value.trim() === "") return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}
