-- The browser desktop (Amazon DCV). "Open in browser" mints a one-time token bound to the
-- customer's machine; DCV on that machine sends it to POST /api/dcv/auth, which consumes it in
-- one conditional UPDATE (unused, unexpired, machine running at the address the call comes
-- from). Only the token's SHA-256 is stored. Every verification DCV asks for, accepted or
-- refused, is kept with the browser's address DCV reports, so a customer's question "who opened
-- my desktop?" has an answer.
CREATE TABLE desktop_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash text NOT NULL UNIQUE,
  user_id uuid NOT NULL REFERENCES users (id),
  vm_id uuid NOT NULL REFERENCES vms (id),
  -- The machine's address when the token was minted: DCV must call from it.
  public_ip text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  CHECK (expires_at > created_at),
  CHECK (used_at IS NULL OR used_at >= created_at)
);
CREATE INDEX desktop_tokens_vm ON desktop_tokens (vm_id, created_at DESC);
CREATE INDEX desktop_tokens_user ON desktop_tokens (user_id, created_at DESC);

CREATE TABLE desktop_token_uses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Null when the token presented is none of ours.
  token_id uuid REFERENCES desktop_tokens (id),
  -- The machine whose address the verification came from, when it is one of ours.
  vm_id uuid REFERENCES vms (id),
  accepted boolean NOT NULL,
  -- accepted | unknown | used | expired | wrong-machine | not-running | wrong-session
  outcome text NOT NULL,
  session_id text NOT NULL,
  -- DCV's clientAddress: the browser that presented the token.
  client_address text NOT NULL,
  -- Who asked us: the DCV server (the machine's address when all is well).
  verifier_address text NOT NULL,
  at timestamptz NOT NULL,
  CHECK (accepted = (outcome = 'accepted'))
);
CREATE INDEX desktop_token_uses_token ON desktop_token_uses (token_id) WHERE token_id IS NOT NULL;
CREATE INDEX desktop_token_uses_vm ON desktop_token_uses (vm_id, at DESC) WHERE vm_id IS NOT NULL;
