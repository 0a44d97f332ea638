/** One field-level problem reported by the service. */
export interface ApiErrorDetail {
  field: string;
  message: string;
  /** Template validation: the rule the field breaks, e.g. `button_text_length`. */
  rule?: string;
}

/** What went wrong: an HTTP error answer, no answer at all, or an answer we could not read. */
export type ApiErrorKind = "http" | "network" | "timeout" | "invalid_response";

/** Marks an ApiError from any copy of this module (the run bundle's or an ESM handler's). */
const apiErrorBrand = Symbol.for("reseller.ApiError");

/** The one error type of the client. */
export class ApiError extends Error {
  /** `instanceof` by brand: a handler loaded as ESM throws its own copy of this class. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && apiErrorBrand in value;
  }

  readonly [apiErrorBrand] = true;
  readonly kind: ApiErrorKind;
  /** HTTP status; 0 when the service never answered. */
  readonly status: number;
  readonly errorCode: string | null;
  readonly details: ApiErrorDetail[];
  readonly requestId: string | null;
  /** Seconds the service asked us to wait (429/503), when it said. */
  readonly retryAfter: number | null;
  /** What to do about it, when the command knows better than the status alone says. */
  readonly hint: string | null;

  constructor(init: {
    kind: ApiErrorKind;
    message: string;
    status?: number;
    errorCode?: string | null;
    details?: ApiErrorDetail[];
    requestId?: string | null;
    retryAfter?: number | null;
    hint?: string | null;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ApiError";
    this.kind = init.kind;
    this.status = init.status ?? 0;
    this.errorCode = init.errorCode ?? null;
    this.details = init.details ?? [];
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.hint = init.hint ?? null;
  }

  /** The same error with a hint of the command's own. */
  withHint(hint: string): ApiError {
    return new ApiError({
      kind: this.kind,
      message: this.message,
      status: this.status,
      errorCode: this.errorCode,
      details: this.details,
      requestId: this.requestId,
      retryAfter: this.retryAfter,
      hint,
      cause: this.cause,
    });
  }
}
