import type { Ec2 } from '../../core/providers/ec2.ts';
import { decryptWindowsPassword, WindowsPasswordError } from '../../core/providers/windowsPassword.ts';
import { sealWindowsPassword } from '../../core/crypto/vmSecrets.ts';
import type { WorkerDeps } from '../deps.ts';

export type PasswordCapture =
  | { status: 'sealed'; sealed: string }
  | { status: 'not-ready' }
  | { status: 'undecryptable'; message: string };

/**
 * EC2's password data for an instance, decrypted with our key pair's private key and sealed
 * for storage at once: the plain password lives only inside this function.
 */
export async function capturePassword(
  deps: WorkerDeps,
  ec2: Ec2,
  instanceId: string,
): Promise<PasswordCapture> {
  const privateKeyPem = deps.config.ec2.privateKeyPem;
  const { passwordData } = await ec2.getPasswordData(instanceId);
  if (!passwordData) return { status: 'not-ready' };
  if (!privateKeyPem) return { status: 'undecryptable', message: 'EC2_PRIVATE_KEY_PEM is not configured.' };
  try {
    const result = decryptWindowsPassword(passwordData, privateKeyPem);
    if (result.status === 'not-ready') return { status: 'not-ready' };
    return { status: 'sealed', sealed: sealWindowsPassword(deps.config.appSecret, result.password) };
  } catch (error) {
    if (error instanceof WindowsPasswordError) {
      // Never guess: a wrong key yields bytes that are not a password, and we say so.
      return {
        status: 'undecryptable',
        message:
          error.reason === 'invalid-key'
            ? `${error.message} EC2_PRIVATE_KEY_PEM is not a usable RSA private key.`
            : `${error.message} EC2_PRIVATE_KEY_PEM does not match the instance's key pair (${deps.config.ec2.keyName}).`,
      };
    }
    throw error;
  }
}
