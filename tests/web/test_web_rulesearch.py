"""The rule documents' full-text index (SQLite FTS5) and ``companion rules index/search/docs``."""

from __future__ import annotations

import pytest

from companion.cli import main
from companion.rulesearch import RuleIndex, RuleIndexError, fts_query, guess_label, split_document


def test_every_document_is_labelled_and_cut_into_cited_passages(rules_index, rule_documents):
    with RuleIndex(rules_index) as idx:
        docs = {d["label"]: d for d in idx.documents()}
    assert set(docs) == {"V4.01c", "R96", "FAQ95", "FAQ96", "BD"}
    assert all(d["passages"] > 20 for d in docs.values())
    v4 = (rule_documents / "v4.01c.txt").read_text()
    lines = v4.splitlines()
    for p in split_document(v4, "V4.01c")[:200]:
        first = int(p.citation.split("L")[1].split("-")[0])
        assert p.first_line == first
        # the passage's first words are on the line it cites
        assert p.text.split()[0] in lines[first - 1]


@pytest.mark.needs_shared
def test_the_real_documents_get_their_labels(shared_dir, tmp_path):
    """The label patterns fit the titles of the documents players own (the seeds in ../shared)."""
    with RuleIndex(tmp_path / "real.sqlite") as idx:
        labels = [idx.add_file(f)[0] for f in sorted((shared_dir / "seeds").glob("*.txt"))]
        assert sorted(labels) == ["BD", "FAQ95", "FAQ96", "R96", "V4.01c"]
        assert all(d["passages"] > 20 for d in idx.documents())
        assert idx.cited("V4.01c L1021") and idx.search("eighth face", label="R96")


def test_search_finds_the_rule_with_its_line(rules_index, rule_documents):
    with RuleIndex(rules_index) as idx:
        hits = idx.search("subtract divide rounded down", label="V4.01c")
    assert hits
    lines = (rule_documents / "v4.01c.txt").read_text().splitlines()
    top = hits[0]
    first = int(top.citation.split("L")[1].split("-")[0])
    assert "round" in " ".join(lines[first - 1 : first + 20]).lower()
    assert "[" in top.snippet and "]" in top.snippet


def test_one_line_faqs_are_cited_by_section(rules_index):
    with RuleIndex(rules_index) as idx:
        hits = idx.search("dragons count towards the total size", label="FAQ96")
    assert hits and hits[0].citation.startswith("FAQ96 §SET-UP")


def test_search_falls_back_to_any_word(rules_index):
    with RuleIndex(rules_index) as idx:
        hits = idx.search("counter-maneuver zzqxv")
    assert hits and all("counter" in h.text.lower() or "maneuver" in h.text.lower() for h in hits)


def test_cited_passages(rules_index):
    with RuleIndex(rules_index) as idx:
        hits = idx.cited("V4.01c L1021-1025")
    assert [h.citation for h in hits][:3] == ["V4.01c L1021", "V4.01c L1023", "V4.01c L1025"]
    assert "subtract" in hits[1].text


def test_queries_are_made_safe():
    assert fts_query('NEAR( "x" OR *') == '"NEAR" "x" "OR"'
    with pytest.raises(RuleIndexError):
        fts_query("*** ()")


def test_reindexing_replaces_and_bad_files_are_refused(tmp_path):
    doc = tmp_path / "house-rules.txt"
    doc.write_text("HOUSE RULES\n\nDragons may nap on Sundays.\n\nNobody rolls on the carpet.\n")
    with RuleIndex(tmp_path / "i.sqlite") as idx:
        assert idx.add_file(doc, label="HR") == ("HR", 3)
        doc.write_text("HOUSE RULES\n\nDragons never nap.\n")
        assert idx.add_file(doc, label="HR") == ("HR", 2)
        assert [h.citation for h in idx.search("nap")] == ["HR L3"]
        (tmp_path / "empty.txt").write_text("  \n")
        with pytest.raises(RuleIndexError, match="empty"):
            idx.add_file(tmp_path / "empty.txt")
        with pytest.raises(RuleIndexError, match="cannot read"):
            idx.add_file(tmp_path / "missing.txt")


def test_labels_from_titles():
    assert guess_label("Dragon Dice® Rules V4.01c\n", "x") == "V4.01c"
    assert guess_label("Dragon Dice Revised Rules\n", "x") == "R96"
    assert guess_label("something else", "fallback") == "fallback"


def test_cli_index_search_docs(tmp_path, rule_documents, capsys):
    index = str(tmp_path / "cli.sqlite")
    seeds = sorted(str(p) for p in rule_documents.glob("*.txt"))
    assert main(["rules", "--index", index, "index", *seeds]) == 0
    out = capsys.readouterr().out
    assert "V4.01c" in out and "FAQ96" in out
    assert main(["rules", "--index", index, "search", "stone skin", "--doc", "V4.01c"]) == 0
    assert "[V4.01c L" in capsys.readouterr().out
    assert main(["rules", "--index", index, "docs"]) == 0
    assert "R96" in capsys.readouterr().out
    assert main(["rules", "--index", index, "search", "qqqzzz"]) == 1
    assert main(["rules", "--index", str(tmp_path / "none.sqlite"), "search", "melee"]) == 1
    assert main(["rules", "--index", index, "index", "--label", "X", *seeds[:2]]) == 2


def test_cli_refuses_a_file_that_is_not_a_rule_index_and_leaves_it_as_it_was(tmp_path, rules_index, capsys):
    """--index naming a text file, a folder or a game file was a sqlite3 traceback (or, for the game file,
    the index's tables written into it); --doc naming no document found nothing as if the rules said
    nothing; --limit 0 or -1 showed a passage anyway; a binary file was indexed as one junk passage."""
    import sqlite3

    text = tmp_path / "notes.txt"
    text.write_text("not an index\n")
    game = tmp_path / "game.sqlite"
    with sqlite3.connect(game) as db:
        db.execute("CREATE TABLE events (seq INTEGER)")
    before = {p: p.read_bytes() for p in (text, game)}
    doc = str(tmp_path / "doc.txt")
    (tmp_path / "doc.txt").write_text("HOUSE RULES\n\nDragons nap.\n")
    for index, word in ((text, "cannot be opened"), (tmp_path, "is a folder"), (game, "is not a rule index")):
        for args in (["search", "nap"], ["docs"], ["index", doc]):
            assert main(["rules", "--index", str(index), *args]) == 2, (index, args)
            assert word in capsys.readouterr().out, (index, args)
    assert {p: p.read_bytes() for p in (text, game)} == before
    assert main(["rules", "--index", str(rules_index), "search", "save", "--doc", "V9"]) == 2
    assert "no document 'V9' in the index (indexed: BD, FAQ95" in capsys.readouterr().out
    assert main(["rules", "--index", str(rules_index), "search", "save", "--doc", "faq96"]) == 0
    assert "[FAQ96 " in capsys.readouterr().out  # a label in other case is the document
    for limit in ("0", "-1", "51"):
        with pytest.raises(SystemExit) as stop:
            main(["rules", "--index", str(rules_index), "search", "save", "--limit", limit])
        assert stop.value.code == 2 and "--limit" in capsys.readouterr().err
    binary = tmp_path / "rules.pdf"
    binary.write_bytes(b"%PDF-1.4\x00\x01\x02 stream")
    index = tmp_path / "new.sqlite"
    assert main(["rules", "--index", str(index), "index", str(binary)]) == 1
    out = capsys.readouterr().out
    assert "not a plain text file" in out and f"nothing indexed: no index made at {index}" in out
    assert not index.exists() and sorted(p.name for p in tmp_path.iterdir() if "new" in p.name) == []
    # into an index that exists, a file that cannot be indexed leaves it as it was
    assert main(["rules", "--index", str(index), "index", doc]) == 0
    kept = index.read_bytes()
    assert main(["rules", "--index", str(index), "index", str(binary)]) == 1
    assert index.read_bytes() == kept
    with RuleIndex(index) as idx:
        assert [d["label"] for d in idx.documents()] != []


def test_api_refuses_an_unknown_doc_and_a_limit_out_of_range(client, tmp_path, app):
    r = client.get("/api/rules/search?q=save&doc=V9")
    assert r.status_code == 400 and r.json["field"] == "doc" and "V4.01c" in r.json["message"], r.json
    assert client.get("/api/rules/search?q=save&doc=faq96").json["hits"][0]["citation"].startswith("FAQ96")
    for limit in ("0", "-5", "51", "x"):
        r = client.get(f"/api/rules/search?q=save&limit={limit}")
        assert r.status_code == 400 and r.json["field"] == "limit", (limit, r.json)
    assert len(client.get("/api/rules/search?q=save&limit=2").json["hits"]) == 2
    # an index file that is not one (a game file, a text file): an answer saying so, not a 500
    bad = tmp_path / "not-an-index.sqlite"
    bad.write_text("hello\n")
    app.config["RULES_INDEX"] = str(bad)
    for url in ("/api/rules/search?q=save", "/api/rules/cite?ref=V4.01c%20L1021"):
        r = client.get(url)
        assert r.status_code == 200 and r.json["hits"] == [] and "cannot be read" in r.json["message"]
    assert bad.read_text() == "hello\n"
