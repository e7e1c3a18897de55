import type { AccessControl } from '../../../app/access.ts';
import type { ReadService } from '../../../app/reads.ts';
import type { RoleMembers } from '../../../domain/roles.ts';
import type { Logger } from '../../../logger.ts';
import type { ApprovalDeps } from '../deps.ts';

/** What the slash command's answers need. */
export interface CommandDeps {
  /** The slash command as this deployment names it (`PAYOPS_COMMAND`). */
  command: string;
  readers: RoleMembers;
  channels: ReadonlySet<string> | undefined;
  accessAdmin: string;
  access: AccessControl;
  reads: ReadService;
  logger: Logger;
  approvals: ApprovalDeps;
}
