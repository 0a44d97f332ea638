import type { ErrorDetail } from "../../contract/envelope.js";
import { type ErrorCode, errorCatalogue } from "../../contract/errors.js";

/**
 * The one error type of the domain and routes: a catalogued code, a message and optional field
 * details, answered as the error envelope. db/ and messaging/ have errors of their own (a
 * database unavailable or incompatible, a Graph API call that failed).
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message ?? errorCatalogue[code].message);
    this.name = "ServiceError";
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** A 422 validation_failed naming each field: "Invalid request. a: …; b: …". */
export function invalidFields(details: ErrorDetail[]): ServiceError {
  const summary = details.map((d) => `${d.field}: ${d.message}`).join("; ");
  return new ServiceError("validation_failed", `Invalid request. ${summary}`, { details });
}

/** A 409 channel_exists: the number a field names is connected already (`where` says to what). */
export function channelExists(field: string, where: string): ServiceError {
  return new ServiceError("channel_exists", `${field}: is already connected ${where}`, {
    details: [{ field, message: `is already connected ${where}` }],
  });
}

/** A 422 validation_failed naming one field. */
export function invalidField(field: string, message: string): ServiceError {
  return new ServiceError("validation_failed", `${field}: ${message}`, {
    details: [{ field, message }],
  });
}
