import { cleanFreeText } from './free-text.ts';
import { scrub } from './scrub.ts';

/**
 * A supporting document (`file=F0123ABC`, or the request form's file input): a Slack file
 * shared with a money-moving write, payops's own like its purpose. payops reads it once when
 * the request is made and keeps its Slack file id, name, size and SHA-256; the hash is sealed
 * with the request (approvers approve the document they were shown) and written in the audit
 * chain. Neither the file nor its hash is ever sent to the provider.
 */

/** The name it is typed under, and the request form's file input. */
export const DOCUMENT_FIELD = 'file';

/** The largest file read: an invoice or a contract, not an archive. */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

/** How long reading it may take, `files.info` and the download together. */
export const DOCUMENT_READ_MS = 20_000;

/** A file name kept and shown: enough to tell one invoice from another. */
export const MAX_DOCUMENT_NAME = 120;

/** A Slack file id (`F0123ABC`): the only form a document is named by. */
export function isSlackFileId(value: string): boolean {
  return /^F[A-Z0-9]{6,20}$/.test(value);
}

/** The document as read, stored with the request. */
export interface SupportingDocument {
  fileId: string;
  /** Scrubbed and cut to MAX_DOCUMENT_NAME: free text someone else chose. */
  name: string;
  /** Bytes read, the same as Slack declared. */
  size: number;
  /** SHA-256 of the bytes read, lower-case hex. */
  sha256: string;
  /** Slack's link to the file, for approvers; none when Slack gave none. */
  permalink?: string | undefined;
}

/** Why a document asked for was not read: the request is then not stored. */
export type DocumentProblem =
  /** Slack knows no such file, or payops may not see it. */
  | { code: 'not_found' }
  /** Neither uploaded by the requester nor shared in the channel where they asked. */
  | { code: 'not_shared' }
  | { code: 'too_large'; size: number; max: number }
  /** The download failed, or gave other bytes than Slack declared. */
  | { code: 'unreadable' }
  | { code: 'timed_out'; ms: number }
  /** This payops reads no documents (no reader configured). */
  | { code: 'unavailable' };

/** A file's name as kept: control characters dropped, secrets and long numbers scrubbed, cut. */
export function documentName(name: string): string {
  const cleaned = scrub(cleanFreeText(name).replace(/\s+/g, ' '));
  const shown = [...cleaned].slice(0, MAX_DOCUMENT_NAME).join('');
  return shown === '' ? 'unnamed file' : shown;
}

/** What the seal holds of a document: its id and hash, one fact no purpose can spell. */
export function documentSealFact(document: Pick<SupportingDocument, 'fileId' | 'sha256'>): string {
  return `document:${document.fileId}:${document.sha256}`;
}
