import { useApi } from './swr.ts';
import type { DeletionPreview } from '../../../core/domain/accountDeletion.ts';

/** Asked when the delete dialog opens; not refreshed on focus while the customer reads it. */
export function useDeletionPreview() {
  return useApi<DeletionPreview>('/user/deletion', { revalidateOnFocus: false });
}

/** Whether the account has a password yet (a Google account may not); `mutate()` after setting one. */
export function usePasswordStatus() {
  return useApi<{ hasPassword: boolean }>('/user/password');
}
