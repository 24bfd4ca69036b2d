/**
 * A host name that wraps at its dots on a narrow screen (`pc-7k2m9q4x` / `.play.legendcloud.in`)
 * rather than in the middle of a label; copied or read, it is the name as it is.
 */
export function HostName({ host }: { host: string }) {
  const [first, ...rest] = host.split('.');
  return (
    <>
      {first}
      {rest.map((label, i) => (
        <span key={i}>
          <wbr />
          {`.${label}`}
        </span>
      ))}
    </>
  );
}
