import type { ApprovalWorkflow } from '../../app/approvals.ts';
import type { ReadService } from '../../app/reads.ts';
import type { RequestQueries } from '../../app/request-queries.ts';
import type { WriteOperationId } from '../../domain/operations.ts';
import type { Logger } from '../../logger.ts';

/** What the approval flow's listeners use: its buttons, its forms and the write commands. */
export interface ApprovalDeps {
  workflow: ApprovalWorkflow;
  /** What approvers look up: pending requests, one request's history, the audit log. */
  queries: RequestQueries;
  reads: ReadService;
  /** The approvals channel: approval cards and the audit CSV go there only. */
  approvalsChannelId: string;
  accessAdmin: string;
  /** The slash command as configured (`/pay` unless renamed), for answers that name it. */
  command: string;
  /** The writes refused without a purpose (`PAYOPS_REQUIRE_PURPOSE`); none when not given. */
  requirePurpose?: ReadonlySet<WriteOperationId> | undefined;
  logger: Logger;
}
