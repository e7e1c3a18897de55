import type { ClickOrigin } from '../app/approvals.ts';
import {
  isWrite,
  OPERATIONS,
  type OperationId,
  type WriteOperationId,
} from '../domain/operations.ts';
import { isRecord } from '../payments/response-shape.ts';
import { requestIdOf } from './interaction-ids.ts';

/**
 * What payops's modals carry in `private_metadata`, written and read here only. It comes back in
 * a payload anyone signed in to the workspace can forge, so reading checks every part and gives
 * `undefined` for anything payops would not have written.
 */

/** The request form: the write, its path parameters and the channel it was asked from. */
export interface RequestForm {
  operationId: WriteOperationId;
  path: Record<string, string>;
  /** Where `/pay <write>` was typed: the requester's answer goes there. */
  channelId?: string | undefined;
  /** The requester's pending request this form edits and resubmits. */
  supersedes?: number | undefined;
}

/** The reject form: its request and where its Reject button was clicked. */
export interface RejectForm {
  id: number;
  origin: ClickOrigin;
}

export function formatRequestForm(form: RequestForm): string {
  return JSON.stringify(form);
}

export function parseRequestForm(privateMetadata: string): RequestForm | undefined {
  const parsed = parseObject(privateMetadata);
  if (!parsed || !isRecord(parsed.path)) return undefined;
  const { operationId, channelId } = parsed;
  const supersedes = requestIdOf(String(parsed.supersedes ?? ''));
  if (typeof operationId !== 'string' || !Object.hasOwn(OPERATIONS, operationId)) return undefined;
  if (!isWrite(operationId as OperationId)) return undefined;
  const writeId = operationId as WriteOperationId;
  const known: readonly string[] = OPERATIONS[writeId].pathParams;
  const path = Object.entries(parsed.path);
  if (!path.every(([name, value]) => known.includes(name) && typeof value === 'string')) {
    return undefined;
  }
  return {
    operationId: writeId,
    path: Object.fromEntries(path) as Record<string, string>,
    ...(typeof channelId === 'string' && /^[CGD][A-Z0-9]+$/.test(channelId) && { channelId }),
    ...(supersedes !== undefined && { supersedes }),
  };
}

export function formatRejectForm({ id, origin }: RejectForm): string {
  return JSON.stringify({ id, ...origin });
}

export function parseRejectForm(privateMetadata: string): RejectForm | undefined {
  const parsed = parseObject(privateMetadata);
  const id = parsed && requestIdOf(String(parsed.id));
  if (!parsed || id === undefined) return undefined;
  if (parsed.home !== undefined) {
    const home = parsed.home;
    if (
      !isRecord(home) ||
      typeof home.fingerprint !== 'string' ||
      !Number.isSafeInteger(home.approvals)
    ) {
      return undefined;
    }
    return {
      id,
      origin: { home: { fingerprint: home.fingerprint, approvals: home.approvals as number } },
    };
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { id, origin: { channelId: text(parsed.channelId), messageTs: text(parsed.messageTs) } };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
