"""League pieces of the web layer: the table's game store on PostgreSQL (``pg_game_store``) and the
organizer's and judge's pages (``app``)."""
