/**
 * The browser-stored values of spec §3. They are display caches only: identity and plans
 * come from the server session (ARCHITECTURE "Security model"). Reading them never throws,
 * so private-mode browsers without storage still work.
 */
export const STORED_KEYS = [
  'isLoggedIn',
  'email',
  'name',
  'phone',
  'hasPlan',
  'purchaseDate',
  'selectedDuration',
  'selectedStorage',
  'selectedPlan',
  'selectedPrice',
  'authToken',
] as const;
export type StoredKey = (typeof STORED_KEYS)[number];

export function readStored(key: StoredKey): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStored(values: Partial<Record<StoredKey, string | number | boolean | null>>): void {
  try {
    for (const [key, value] of Object.entries(values)) {
      if (value === null || value === undefined) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, String(value));
    }
  } catch {
    // storage unavailable: the caches simply stay empty
  }
}

/** Logout (spec §3): clears the login values. */
export function clearLogin(): void {
  writeStored({ isLoggedIn: null, email: null, authToken: null });
}

/** Dashboard logout (spec §2): clears all stored data. */
export function clearAllStored(): void {
  try {
    window.localStorage.clear();
    window.sessionStorage.clear();
  } catch {
    // nothing to clear
  }
}
