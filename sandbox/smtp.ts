import { SMTPServer } from 'smtp-server';

/**
 * An SMTP mail catcher: a real SMTP server on a local port that accepts every message (no TLS,
 * any or no login) and reports who it was for and when it arrived. The mail benchmark points
 * the app's SMTP_URL here, so pooled connections, pipelining and the protocol's round trips
 * are all real; only the far end is local.
 */
export type CaughtSmtpMail = { from: string; to: string[]; bytes: number; receivedAt: number };

export type SmtpCatcher = { port: number; url: string; close: () => Promise<void> };

export async function startSmtpCatcher(
  onMail: (mail: CaughtSmtpMail) => void,
  options: {
    /** While this answers false the server turns every connection away (421), as one that is down. */
    accepting?: () => boolean;
  } = {},
): Promise<SmtpCatcher> {
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    size: 10 * 1024 * 1024,
    onConnect(_session, callback) {
      if (options.accepting && !options.accepting()) {
        callback(Object.assign(new Error('Service not available, try again later'), { responseCode: 421 }));
        return;
      }
      callback();
    },
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'sandbox' });
    },
    onData(stream, session, callback) {
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        onMail({ from, to: session.envelope.rcptTo.map((r) => r.address), bytes, receivedAt: Date.now() });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
