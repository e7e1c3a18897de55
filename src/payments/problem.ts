/**
 * The spec does not show the error body's shape, so code, message and request id are looked
 * for where APIs commonly put them. Any body, however odd, yields a result and never throws.
 */
export interface Problem {
  code: string | undefined;
  message: string | undefined;
  requestId: string | undefined;
}

const CODE_KEYS = ['code', 'error_code', 'errorCode', 'type'];
const MESSAGE_KEYS = ['message', 'error_description', 'detail', 'title', 'description', 'msg'];
const REQUEST_ID_KEYS = [
  'request_id',
  'requestId',
  'requestID',
  'trace_id',
  'traceId',
  'correlation_id',
];
const NESTED_KEYS = ['error', 'errors', 'meta', 'details'];
const MAX_TEXT = 500;

export function readProblem(text: string): Problem {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // A plain-text error page: its first line may still say what happened.
    const firstLine = text.trim().split('\n')[0]?.trim();
    return {
      code: undefined,
      message: firstLine ? clip(firstLine) : undefined,
      requestId: undefined,
    };
  }
  const candidates = objectsToSearch(body);
  return {
    code: firstString(candidates, CODE_KEYS) ?? codeLikeErrorString(body),
    message: firstString(candidates, MESSAGE_KEYS) ?? plainErrorString(body),
    requestId: firstString(candidates, REQUEST_ID_KEYS),
  };
}

/** The body itself and the objects nested under the usual keys, nearest first. */
function objectsToSearch(body: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 2) return;
    if (Array.isArray(value)) {
      if (value.length > 0) visit(value[0], depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    found.push(value);
    for (const key of NESTED_KEYS) visit(value[key], depth + 1);
  };
  visit(body, 0);
  return found;
}

function firstString(objects: Record<string, unknown>[], keys: string[]): string | undefined {
  for (const object of objects) {
    for (const key of keys) {
      const value = object[key];
      if (typeof value === 'string' && value.trim()) return clip(value.trim());
      if (typeof value === 'number') return String(value);
    }
  }
  return undefined;
}

/** `{"error": "INSUFFICIENT_API_KEY_SCOPE"}` */
function codeLikeErrorString(body: unknown): string | undefined {
  const error = isRecord(body) ? body.error : undefined;
  return typeof error === 'string' && /^[A-Z][A-Z0-9_]{2,}$/.test(error) ? error : undefined;
}

/** `{"error": "API key is required"}` */
function plainErrorString(body: unknown): string | undefined {
  if (typeof body === 'string' && body.trim()) return clip(body.trim());
  const error = isRecord(body) ? body.error : undefined;
  return typeof error === 'string' && error.trim() ? clip(error.trim()) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}
