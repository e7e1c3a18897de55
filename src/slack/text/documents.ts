import type { DocumentProblem, SupportingDocument } from '../../domain/document.ts';
import { code, freeText } from '../blocks/format.ts';

/**
 * The words of a supporting document (src/domain/document.ts): on the card and in
 * `request N`, and why one named with a request could not be read.
 */

/** How much of its SHA-256 the card shows: enough to compare by eye with a file's own hash. */
const HASH_SHOWN = 12;

/**
 * `*Document:* <link|invoice.pdf> (12 KB, SHA-256 3f2a9c…)`: the file as payops read it; the
 * hash is what was read then, whatever the file in Slack holds now.
 */
export function documentLine(document: SupportingDocument): string {
  const name = freeText(document.name, 400);
  const shown =
    document.permalink && /^https?:\/\/[^\s|<>]+$/.test(document.permalink)
      ? `<${document.permalink}|${name.replace(/\|/g, '¦')}>`
      : name;
  const hash = `SHA-256 ${code(`${document.sha256.slice(0, HASH_SHOWN)}…`)}`;
  return `*Document:* ${shown} (${sizeText(document.size)}, ${hash}) _(read by payops when requested; not sent to the provider)_`;
}

/** Why the document was not read: the request is not stored, so it says what to do. */
export function documentProblemText(fileId: string, problem: DocumentProblem): string {
  const file = `the supporting file ${code(fileId)}`;
  switch (problem.code) {
    case 'not_found':
      return `${file} was not found: Slack does not have it, or payops cannot see it (invite payops to the channel where it is shared, or attach it in the request form)`;
    case 'not_shared':
      return `${file} was neither uploaded by you nor shared in the channel where you asked: share it there first, or attach it in the request form`;
    case 'too_large':
      return `${file} is ${sizeText(problem.size)}; payops reads at most ${sizeText(problem.max)}`;
    case 'unreadable':
      return `payops could not download ${file} from Slack, or got other bytes than Slack declared. Send the request again`;
    case 'timed_out':
      return `reading ${file} took longer than ${Math.round(problem.ms / 1000)} s. Send the request again`;
    case 'unavailable':
      return `this payops does not read supporting files; send the request without ${code('file=')}`;
  }
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
