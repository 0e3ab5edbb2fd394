import type { ErrorCode } from "./error-code.ts";

/** One field-level complaint: `loc` is a dotted path such as `body.0.event_type`. */
export interface FieldError {
  loc: string;
  msg: string;
}

interface SvcErrorOptions {
  cause?: unknown;
  errors?: FieldError[];
}

/**
 * Base of every domain error that may reach a caller. `message` is what the caller reads, so it must
 * never hold a secret; the underlying failure travels in `cause` and reaches only the log.
 */
export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;

  constructor(code: ErrorCode, message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.errors = options.errors;
  }
}

export class ValidationError extends SvcError {
  constructor(message: string, errors: FieldError[] = [], options: { cause?: unknown } = {}) {
    super("validation", message, { ...options, errors });
  }
}

export class NotFoundError extends SvcError {
  constructor(message = "not found", options: { cause?: unknown } = {}) {
    super("not_found", message, options);
  }
}

export class ConflictError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("conflict", message, options);
  }
}

export class UnavailableError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("unavailable", message, options);
  }
}

export class UnauthorizedError extends SvcError {
  constructor(message = "no usable credential", options: { cause?: unknown } = {}) {
    super("unauthorized", message, options);
  }
}

export class ForbiddenError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("forbidden", message, options);
  }
}

export class PayloadTooLargeError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("payload_too_large", message, options);
  }
}

/** A body the contract admits that a domain rule refuses (422 `unprocessable`). */
export class UnprocessableError extends SvcError {
  constructor(message: string, errors: FieldError[] = [], options: { cause?: unknown } = {}) {
    super("unprocessable", message, { ...options, errors });
  }
}

export class RelationCycleError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("relation_cycle", message, options);
  }
}

export class HistoryTooLongError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("history_too_long", message, options);
  }
}

export class ResultTooLargeError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("result_too_large", message, options);
  }
}

export class NotImplementedError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("not_implemented", message, options);
  }
}

export class UnsupportedMediaTypeError extends SvcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("unsupported_media_type", message, options);
  }
}
