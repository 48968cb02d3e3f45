-- The camera frame a roll was read from (JPEG), pushed by its table after the roll's event, shown to
-- judges under that roll.  One frame per event, never changed once stored; not part of replay.
CREATE TABLE event_frames (
    game_id     text    NOT NULL,
    seq         integer NOT NULL,
    jpeg        bytea   NOT NULL CHECK (length(jpeg) BETWEEN 3 AND 2097152),
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seq),
    FOREIGN KEY (game_id, seq) REFERENCES events (game_id, seq)
);
