/** Minimal server-rendered pages for the sandbox's human-facing screens. */

export function escape(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Sandbox</title>
<link rel="stylesheet" href="/sandbox/sandbox.css">
</head>
<body>
<p class="banner">Sandbox: a local stand-in for an outside service. Nothing here is real.</p>
<h1>${escape(title)}</h1>
${body}
</body>
</html>`;
}

export const STYLES = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 0 auto; padding: 1rem; color: #1a1a2e; }
.banner { background: #fff3cd; border: 1px solid #e0c36a; padding: .5rem .75rem; border-radius: 6px; }
.mail { border: 1px solid #ccd; border-radius: 8px; padding: .75rem; margin: .75rem 0; }
.mail pre { white-space: pre-wrap; word-break: break-word; margin: .5rem 0 0; }
button, .button { font: inherit; padding: .6rem 1.2rem; border-radius: 6px; border: 1px solid #334; cursor: pointer; }
.primary { background: #1f6f43; color: #fff; border-color: #1f6f43; }
.danger { background: #9b1c1c; color: #fff; border-color: #9b1c1c; }
label { display: block; margin: .5rem 0; }
input { font: inherit; padding: .4rem; }
.payu-checkout { border: 1px solid #ccd; border-radius: 8px; padding: 1rem; max-width: 36rem; }
.payu-summary { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0 0 1rem; }
.payu-summary dt { font-weight: 600; }
.payu-summary dd { margin: 0; word-break: break-word; }
.payu-amount { font-size: 1.4rem; font-weight: 700; }
.payu-actions { display: flex; flex-wrap: wrap; gap: .75rem; }
.payu-actions form { margin: 0; }
.payu-muted { color: #556; font-size: .9rem; }
.payu-error { border: 1px solid #9b1c1c; background: #fdecec; border-radius: 8px; padding: .75rem 1rem; }
`;
