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
  for (const field of quotingFields) delete logged[field];
  return logged;
}
