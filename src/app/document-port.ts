import type { DocumentProblem, SupportingDocument } from '../domain/document.ts';

/**
 * Reads a supporting document once, when its request is made (src/slack/documents.ts reads it
 * from Slack): its name and size, and the SHA-256 of its bytes.
 */
export interface DocumentReader {
  read(asked: DocumentAsked): Promise<DocumentRead>;
}

export interface DocumentAsked {
  fileId: string;
  requesterId: string;
  /** Where the request was made: a file shared there may be attached by anyone asking there. */
  channelId: string | undefined;
}

export type DocumentRead =
  | { kind: 'read'; document: SupportingDocument }
  | { kind: 'unreadable'; problem: DocumentProblem };
