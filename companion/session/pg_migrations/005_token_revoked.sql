-- A token the organizer revoked (companion league token revoke, or the organizer's page) is kept, with
-- when it was revoked, so the organizer's list still shows it; it is refused from then on.
ALTER TABLE league_tokens ADD COLUMN revoked_at timestamptz;
