-- Who made each change (the event's `by`: host, a paired tablet by name, the demo script, the CLI, and
-- for a roll where its faces came from): NULL for events written before it.  Replay never reads it; it
-- is part of the event, so it may not change once written (the append-only rule below now covers it).
ALTER TABLE events ADD COLUMN changed_by jsonb;

CREATE OR REPLACE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.game_id = OLD.game_id AND NEW.seq = OLD.seq AND NEW.type = OLD.type
                AND NEW.player IS NOT DISTINCT FROM OLD.player AND NEW.action = OLD.action
                AND NEW.log = OLD.log AND NEW.at = OLD.at
                AND NEW.changed_by IS NOT DISTINCT FROM OLD.changed_by AND (NEW.undone OR NOT OLD.undone) THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION 'the event log is append-only: % on events refused (only undone may turn true)', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
