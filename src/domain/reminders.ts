/**
 * A pending request's reminders, as thread notices: one when it has waited PAYOPS_REMIND_AFTER
 * (`reminder`), one in its last hour (`expiring`). src/store/reminder-store.ts queues them.
 */
export const REMINDER_EVENTS = ['reminder', 'expiring'] as const;
export type ReminderEvent = (typeof REMINDER_EVENTS)[number];

export function isReminderEvent(event: string | undefined): event is ReminderEvent {
  return (REMINDER_EVENTS as readonly (string | undefined)[]).includes(event);
}
