import useSWR from 'swr';
import { swrFetcher } from './fetcher.ts';

/** What deleting the account would destroy and keep (`GET /api/user/deletion`). */
export type DeletionPreview = {
  machine: string;
  hasMachine: boolean;
  plan: { name: string; hoursLeft: string; expiresAt: string | null } | null;
  invoices: number;
  trialPhoneKept: boolean;
};

/** Asked when the delete dialog opens; not refreshed on focus while the customer reads it. */
export function useDeletionPreview() {
  return useSWR<DeletionPreview>('/user/deletion', swrFetcher, { revalidateOnFocus: false });
}

/** Whether the account has a password yet (a Google account may not); `mutate()` after setting one. */
export function usePasswordStatus() {
  return useSWR<{ hasPassword: boolean }>('/user/password', swrFetcher);
}
