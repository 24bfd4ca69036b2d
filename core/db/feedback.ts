import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/** Messages from the contact/feedback form (spec §3 "Feedback/contact message"). */
export const FeedbackMessage = z.object({
  id: z.uuid(),
  first_name: z.string(),
  last_name: z.string(),
  field: z.string(),
  contact_number: z.string(),
  email: z.string(),
  message: z.string(),
  created_at: z.date(),
});
export type FeedbackMessage = z.infer<typeof FeedbackMessage>;

export type NewFeedbackMessage = {
  firstName: string;
  lastName: string;
  field: string;
  contactNumber: string;
  email: string;
  message: string;
  ip: string | null;
};

const COLUMNS = sql.fragment`id, first_name, last_name, field, contact_number, email, message, created_at`;

export async function insertFeedbackMessage(db: Db, message: NewFeedbackMessage): Promise<FeedbackMessage> {
  return db.one(sql.type(FeedbackMessage)`
    INSERT INTO feedback_messages (first_name, last_name, field, contact_number, email, message, ip)
    VALUES (${message.firstName}, ${message.lastName}, ${message.field}, ${message.contactNumber},
            ${message.email}, ${message.message}, ${message.ip})
    RETURNING ${COLUMNS}`);
}
