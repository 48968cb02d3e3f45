-- The event log on PostgreSQL: the same events as the SQLite file (companion/session/store.py),
-- one row per event, (game_id, seq) unique; rows are never deleted and only `undone` may change
-- (false -> true, by an undo event in the same transaction).
CREATE TABLE games (
    game_id    text PRIMARY KEY CHECK (game_id ~ '^[A-Za-z0-9_-]{1,64}$'),
    format     text NOT NULL,
    table_no   text,
    last_seq   integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX games_table ON games (table_no, created_at);

CREATE TABLE events (
    game_id text    NOT NULL REFERENCES games (game_id),
    seq     integer NOT NULL CHECK (seq > 0),
    type    text    NOT NULL,
    player  text,
    action  jsonb   NOT NULL,
    log     jsonb   NOT NULL DEFAULT '[]',
    undone  boolean NOT NULL DEFAULT false,
    at      text    NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.game_id = OLD.game_id AND NEW.seq = OLD.seq AND NEW.type = OLD.type
                AND NEW.player IS NOT DISTINCT FROM OLD.player AND NEW.action = OLD.action
                AND NEW.log = OLD.log AND NEW.at = OLD.at AND (NEW.undone OR NOT OLD.undone) THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION 'the event log is append-only: % on events refused (only undone may turn true)', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();
