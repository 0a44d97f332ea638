/**
 * `record[key]` when the record holds `key` itself, else undefined: a key someone typed (a
 * custom field a campaign maps, a CSV cell, a URL segment) must never find what every object
 * inherits (`constructor`, `toString`), which a plain `record[key]` answers with a function.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
