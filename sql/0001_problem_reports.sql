-- Problem reports (spec §2 "Report form"): the first feature through every layer. A report is
-- stored before support is emailed, so a mail outage loses nothing. user_id links a logged-in
-- reporter once accounts exist; anonymous reports keep it null.
CREATE TABLE problem_reports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description text NOT NULL CHECK (length(description) BETWEEN 1 AND 5000),
  severity text NOT NULL DEFAULT 'low' CHECK (severity IN ('low', 'medium', 'high')),
  phone_number text NOT NULL CHECK (phone_number ~ '^[6-9][0-9]{9}$'),
  page_url text CHECK (length(page_url) <= 2000),
  ip inet,
  created_at timestamptz NOT NULL DEFAULT now(),
  notified_at timestamptz
);

CREATE INDEX problem_reports_created_at ON problem_reports (created_at DESC);
