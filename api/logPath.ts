/**
 * The request path as the access log records it: a segment holding an email address (the
 * spec's `/vm/dashboard/{email}`-style addresses, raw or percent-encoded) becomes `:email`, and a
 * long opaque segment (a token, 24+ characters of base64url or hex) becomes `:token`. Query
 * strings are never logged at all.
 */
export function loggedPath(path: string): string {
  // Most paths hold neither (every dashboard poll): answered without splitting.
  if (!MAYBE_MASKED.test(path)) return path;
  return path
    .split('/')
    .map((segment) => {
      if (/@|%40/i.test(segment)) return ':email';
      if (/^[A-Za-z0-9_-]{24,}$/.test(segment) && /\d/.test(segment) && /[A-Za-z]/.test(segment))
        return ':token';
      return segment;
    })
    .join('/');
}

/** True for any path with a segment `loggedPath` might mask: an @ (raw or encoded) or a 24+ character run. */
const MAYBE_MASKED = /@|%40|[A-Za-z0-9_-]{24,}/i;
