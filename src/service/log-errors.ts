import pino from "pino";

/**
 * Fields of a database error that quote the rows it concerns: PostgreSQL's `detail` ("Key
 * (phone)=(+49…) already exists", "Failing row contains (…)"), `where` and `internalQuery`.
 */
const quotingFields = ["detail", "where", "internalQuery"] as const;

/**
 * The service log's `err` serializer: pino's own, without the fields that would copy a
 * contact's data into the log. The message, code, constraint and stack stay for the operator.
 */
export function loggedError(error: Error): ReturnType<typeof pino.stdSerializers.err> {
  const logged = pino.stdSerializers.err(error);
  withoutQuotes(logged);
  return logged;
}

/** Drops the quoting fields from a serialized error and the errors serialized inside it. */
function withoutQuotes(logged: Record<string, unknown>): void {
  for (const field of quotingFields) delete logged[field];
  // pino serializes an error's errors too: an AggregateError's, and any property holding one.
  for (const value of Object.values(logged)) {
    const inner = Array.isArray(value) ? value : [value];
    for (const item of inner) {
      if (typeof item === "object" && item !== null) withoutQuotes(item as Record<string, unknown>);
    }
  }
}
