import { mutate } from 'swr';
import { api } from './fetcher.ts';
import { DASHBOARD_KEY } from './vm.ts';

/** Moonlight pairing (`POST /vm/stream-pair`, `DELETE /vm/stream-pair/:id`); the record follows from the dashboard. */

export type PairingAnswer = {
  message: string;
  device?: { id: string; name: string; state: string; pairedAt: string | null };
  pairing?: { id: string; name: string; state: string };
};

/**
 * Sends the PIN Moonlight shows. The server waits for the machine's answer (up to 45 s): 200
 * paired, 202 still going (the dashboard record follows it), or an ApiError whose message says
 * what to do.
 */
export async function pairDevice(pin: string, deviceName: string): Promise<PairingAnswer> {
  try {
    return await api<PairingAnswer>('/vm/stream-pair', { body: { pin, deviceName } });
  } finally {
    void mutate(DASHBOARD_KEY);
  }
}

export async function removeDevice(id: string): Promise<PairingAnswer> {
  try {
    return await api<PairingAnswer>(`/vm/stream-pair/${encodeURIComponent(id)}`, { method: 'DELETE' });
  } finally {
    void mutate(DASHBOARD_KEY);
  }
}
