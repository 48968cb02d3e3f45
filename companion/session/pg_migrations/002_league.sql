-- The league around the event log: who may do what (tokens), players, rounds, pairings, each
-- table's live state (written by every accepted push), results posted when a game ends, settings.
CREATE TABLE league_tokens (
    token_hash text PRIMARY KEY,                 -- sha256 of the token; the token itself is never stored
    role       text NOT NULL CHECK (role IN ('organizer', 'table', 'judge')),
    table_no   text,
    label      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((role = 'table') = (table_no IS NOT NULL))
);

CREATE TABLE league_players (
    player_id  serial PRIMARY KEY,
    name       text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 80),
    force      text NOT NULL DEFAULT '',
    dropped    boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE league_rounds (
    round_no   integer PRIMARY KEY CHECK (round_no > 0),
    method     text NOT NULL CHECK (method IN ('swiss', 'round_robin')),
    minutes    integer NOT NULL DEFAULT 90 CHECK (minutes > 0),
    started_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE league_pairings (
    round_no  integer NOT NULL REFERENCES league_rounds,
    table_no  text NOT NULL,
    player1   integer NOT NULL REFERENCES league_players,
    player2   integer REFERENCES league_players,     -- NULL: a bye
    game_id   text UNIQUE REFERENCES games,
    PRIMARY KEY (round_no, table_no)
);

CREATE TABLE league_live (
    game_id    text PRIMARY KEY REFERENCES games,
    table_no   text NOT NULL,
    seq        integer NOT NULL,
    turn       integer,
    phase      text,
    step       text,
    marching   text,
    players    jsonb NOT NULL DEFAULT '[]',
    terrains   jsonb NOT NULL DEFAULT '[]',
    over       boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX league_live_table ON league_live (table_no, updated_at);

CREATE TABLE league_results (
    game_id     text PRIMARY KEY REFERENCES games,
    table_no    text NOT NULL,
    winner      text,                -- the engine's player id (p1, p2, ...)
    winner_name text,
    how         text NOT NULL,       -- capture, elimination or other (the engine's reason is kept too)
    reason      text NOT NULL,
    turn        integer,
    started_at  text NOT NULL,       -- the create event's time
    ended_at    text NOT NULL,       -- the time of the event that ended the game
    posted_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE league_settings (
    key   text PRIMARY KEY,
    value jsonb NOT NULL
);
