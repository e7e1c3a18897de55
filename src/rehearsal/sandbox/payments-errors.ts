/**
 * A refusal by the sandbox, thrown anywhere while handling a request and turned into the error
 * body at the edge. The spec does not show the error body; the sandbox's choice is
 * `{ "error": { "code", "message", "request_id" } }`.
 */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

export function errorBody(code: string, message: string, requestId: string): unknown {
  return { error: { code, message, request_id: requestId } };
}

/** 422: a well-formed request whose content the sandbox refuses. */
export function unprocessable(code: string, message: string): SandboxError {
  return new SandboxError(422, code, message);
}
