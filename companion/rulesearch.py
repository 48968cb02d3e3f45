"""Full-text search over the rule documents the players own (SQLite FTS5).

The project ships no copy of the rule documents.  Players point ``companion rules index FILE...``
at their own copies; each file is cut into short passages, each passage remembers where it came
from (document label, line range or section), and the Dispute panel searches them.

Passages:

* documents with many lines are cut at blank lines (paragraphs), at most ``MAX_LINES`` lines each,
  and cited by line range ("V4.01c L1011-1030");
* documents stored as one long line (the FAQs) are cut at their ``***HEADING`` and ``A) title``
  markers and then at sentence ends, and cited by section ("FAQ96 §SET-UP A").

The index is a plain SQLite file; ``RuleIndex`` opens it (creating the tables), ``add_file``
(re)indexes one document, ``search`` answers a query with ranked, cited passages.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

MAX_LINES = 24
MAX_CHARS = 900

# How a document announces itself in its first lines -> the short label used in citations.
_LABEL_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"Rules\s+V4\.01c", "V4.01c"),
    (r"Revised Rules", "R96"),
    (r"Clarifications.*\(v1\.0\)", "FAQ95"),
    (r"\(v1\.34\)", "FAQ96"),
    (r"BATTLE DICE", "BD"),
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    label TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    title TEXT NOT NULL,
    passages INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
    text, label UNINDEXED, citation UNINDEXED, section UNINDEXED, first_line UNINDEXED, last_line UNINDEXED,
    tokenize = 'porter unicode61'
);
"""


class RuleIndexError(ValueError):
    """A document or query the index cannot take, with the reason."""


@dataclass(frozen=True)
class Passage:
    label: str
    citation: str
    section: str
    text: str
    first_line: int = 0  # 1-based line range in the document (0 for one-line documents)
    last_line: int = 0


@dataclass(frozen=True)
class Hit:
    label: str
    citation: str
    section: str
    snippet: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_index_path() -> Path:
    """Where ``companion rules index`` writes and the server reads, unless told otherwise."""
    env = os.environ.get("COMPANION_RULES_INDEX")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "dragon-dice-companion" / "rules-index.sqlite"


def guess_label(text: str, fallback: str) -> str:
    head = text[:1500]
    for pattern, label in _LABEL_PATTERNS:
        if re.search(pattern, head):
            return label
    return fallback


def _title(text: str) -> str:
    for line in text.splitlines():
        line = re.sub(r"<\|[^|]*\|>", "", line).strip()
        if line:
            return line[:120]
    return ""


_HEADING_LINE = re.compile(r"^[A-Z][A-Z0-9 '’&:,/()\-]{3,60}$")


def _clean(line: str) -> str:
    # Some copies carry extraction markers like "<|...|>" glued to headings.
    return re.sub(r"<\|[^|]*\|>", "", line)


def split_lines_document(text: str, label: str) -> Iterator[Passage]:
    """Paragraph passages of a many-line document, cited by 1-based line range."""
    lines = text.splitlines()
    section = ""
    start = None
    buf: list[str] = []

    def flush(end_line: int) -> Passage | None:
        if start is None or not "".join(buf).strip():
            return None
        cite = f"{label} L{start}" if start == end_line else f"{label} L{start}-{end_line}"
        return Passage(label, cite, section, " ".join(s.strip() for s in buf if s.strip()), start, end_line)

    for number, raw in enumerate(lines, start=1):
        line = _clean(raw)
        stripped = line.strip()
        if not stripped:
            p = flush(number - 1)
            if p:
                yield p
            start, buf = None, []
            continue
        if _HEADING_LINE.match(stripped) and not buf:
            section = stripped.title()
        if start is None:
            start = number
        buf.append(line)
        if len(buf) >= MAX_LINES or sum(len(b) for b in buf) > MAX_CHARS * 2:
            p = flush(number)
            if p:
                yield p
            start, buf = None, []
    p = flush(len(lines))
    if p:
        yield p


_SECTION_MARK = re.compile(r"\*{3}\s*([A-Z][A-Z0-9 '&/\-]+?)(?=\s+[A-Z]\)|\s*$|\s+[A-Z][a-z])")
_SUBSECTION_MARK = re.compile(r"(?<=\s)([A-Z])\)\s+((?:[A-Z][\w'’-]*\s?){1,6})")
_SUBSECTION_START = re.compile(r"([A-Z])\)\s+((?:[A-Z][\w'’-]*\s?){1,6})")


def split_long_line_document(text: str, label: str) -> Iterator[Passage]:
    """Passages of a document stored as one long line, cited by section and character offset."""
    flat = _clean(text).replace("\n", " ")
    # Cut before every "***HEADING" and every " A) Title" marker, then at sentence ends.
    cuts = sorted(
        {0, len(flat)}
        | {m.start() for m in re.finditer(r"\*{3}", flat)}
        | {m.start(1) for m in _SUBSECTION_MARK.finditer(flat)}
    )
    section, sub = "", ""
    for a, b in zip(cuts, cuts[1:], strict=False):
        chunk = flat[a:b]
        m = _SECTION_MARK.match(chunk)
        if m:
            section, sub = m.group(1).strip(), ""
        m = _SUBSECTION_START.match(chunk)
        if m:
            sub = f"{m.group(1)}) {m.group(2).strip()}"
        where = " ".join(x for x in (section, sub) if x) or "preamble"
        for off, piece in _sentence_groups(chunk):
            if piece.strip():
                yield Passage(label, f"{label} §{where} (char {a + off + 1})", where, piece.strip())


def _sentence_groups(chunk: str) -> Iterator[tuple[int, str]]:
    if len(chunk) <= MAX_CHARS:
        yield 0, chunk
        return
    start = 0
    while start < len(chunk):
        end = min(len(chunk), start + MAX_CHARS)
        if end < len(chunk):
            dot = chunk.rfind(". ", start + MAX_CHARS // 3, end)
            if dot > 0:
                end = dot + 1
        yield start, chunk[start:end]
        start = end


def split_document(text: str, label: str) -> list[Passage]:
    lines = text.splitlines()
    if len(lines) <= 3 and len(text) > 2000:
        return list(split_long_line_document(text, label))
    return list(split_lines_document(text, label))


_LINE_CITATION = re.compile(r"([A-Za-z0-9.]+)\s+L(\d+)(?:\s*[-–]\s*(\d+))?")
_QUERY_TOKEN = re.compile(r"[\w’']+", re.UNICODE)


def fts_query(text: str, any_word: bool = False) -> str:
    """Turn what a player types into a safe FTS5 query (each word quoted; all required unless any_word)."""
    words = [w.replace('"', "") for w in _QUERY_TOKEN.findall(text)]
    words = [w for w in words if w]
    if not words:
        raise RuleIndexError("search text has no words")
    return (" OR " if any_word else " ").join(f'"{w}"' for w in words[:12])


class RuleIndex:
    """An FTS5 index of rule passages in one SQLite file."""

    def __init__(self, path: str | os.PathLike[str], create: bool = True):
        """Open the index at ``path``; ``create=False`` (searching) opens it read-only and refuses a
        file that is not there.  A folder, a file that is not SQLite, or a SQLite file of something else
        (a game file) is refused with :class:`RuleIndexError`, and left as it was."""
        self.path = Path(path)
        if self.path.is_dir():
            raise RuleIndexError(f"{self.path} is a folder, not a rule index file")
        if not create and not self.path.is_file():
            raise RuleIndexError(f"no rule index at {self.path}")
        db = None
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, check_same_thread=False)
            else:
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except (OSError, sqlite3.Error) as exc:
            if db is not None:
                db.close()
            raise RuleIndexError(f"{self.path} cannot be opened as a rule index: {exc}") from None
        ours = {"documents", "passages"}
        if (tables or not create) and not (
            ours <= tables and all(t in ours or t.startswith(("passages_", "sqlite_")) for t in tables)
        ):
            db.close()
            raise RuleIndexError(f"{self.path} is not a rule index (made by `companion rules index FILE...`)")
        self._db = db
        if create:
            self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RuleIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_file(self, path: str | os.PathLike[str], label: str | None = None) -> tuple[str, int]:
        """Index (or re-index) one document; returns its label and passage count."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise RuleIndexError(f"cannot read {p}: {exc.strerror or exc}") from exc
        if not text.strip():
            raise RuleIndexError(f"{p} is empty")
        if "\x00" in text:  # a PDF, a word-processor file, a program: indexed it would be one junk passage
            raise RuleIndexError(f"{p} is not a plain text file (save the document as text first)")
        label = label or guess_label(text, p.stem)
        passages = split_document(text, label)
        with self._db:
            self._db.execute("DELETE FROM passages WHERE label = ?", (label,))
            self._db.executemany(
                "INSERT INTO passages(text, label, citation, section, first_line, last_line) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(x.text, x.label, x.citation, x.section, x.first_line, x.last_line) for x in passages],
            )
            self._db.execute(
                "INSERT OR REPLACE INTO documents(label, path, title, passages) VALUES (?, ?, ?, ?)",
                (label, str(p.resolve()), _title(text), len(passages)),
            )
        return label, len(passages)

    def document_label(self, label: str | None) -> str | None:
        """The indexed document's label that ``label`` names (case does not matter); ``None``/"": all.
        A label of no indexed document is refused naming the labels there are (a search in it would
        find nothing, as if the words were not in the rules)."""
        if not label or not label.strip():
            return None
        labels = [str(r[0]) for r in self._db.execute("SELECT label FROM documents ORDER BY label")]
        found = next((x for x in labels if x.lower() == label.strip().lower()), None)
        if found is None:
            raise RuleIndexError(
                f"no document {label!r} in the index (indexed: {', '.join(labels) or 'none'})"
            )
        return found

    def documents(self, paths: bool = True) -> list[dict[str, Any]]:
        """The indexed documents; ``paths=False`` leaves out where each file lies on this machine
        (for pages anyone on the network may read: only the file's name is given)."""
        rows = self._db.execute("SELECT label, path, title, passages FROM documents ORDER BY label")
        docs = [dict(zip(("label", "path", "title", "passages"), r, strict=True)) for r in rows]
        if not paths:
            for d in docs:
                d["file"] = Path(d.pop("path")).name
        return docs

    def cited(self, citation: str, limit: int = 6) -> list[Hit]:
        """The passages a citation points at ("V4.01c L1011-1030", "V4.01c L508; FAQ96 ..."):
        for line citations, every passage overlapping the lines; otherwise a search on its words."""
        hits: list[Hit] = []
        for part in re.split(r"[;,]\s*(?=[A-Z])", citation):
            m = _LINE_CITATION.search(part)
            if not m:
                words = re.sub(r"[^A-Za-z ]", " ", part).split()
                if len(words) > 1:
                    hits.extend(
                        self._search(fts_query(" ".join(words[1:]), any_word=False), 3, words[0])
                        if words[0] in {d["label"] for d in self.documents()}
                        else []
                    )
                continue
            label, first = m.group(1), int(m.group(2))
            last = int(m.group(3) or first)
            rows = self._db.execute(
                "SELECT label, citation, section, text, text FROM passages WHERE label = ? AND "
                "first_line <= ? AND last_line >= ? ORDER BY first_line LIMIT ?",
                (label, last, first, limit),
            ).fetchall()
            hits.extend(Hit(*r) for r in rows)
        return hits[:limit]

    def search(
        self, text: str, limit: int = 10, label: str | None = None, prefer: Sequence[str] = ()
    ) -> list[Hit]:
        """Passages holding every word, best first; if none does, passages holding any word.

        ``prefer``: document labels ranked ahead of the others, in that order (a V4.01c game's
        search shows V4.01c passages before 1996 ones); within a document, by relevance."""
        label = self.document_label(label)
        hits = self._search(fts_query(text), limit, label, prefer)
        if not hits and len(_QUERY_TOKEN.findall(text)) > 1:
            hits = self._search(fts_query(text, any_word=True), limit, label, prefer)
        return hits

    def _search(self, query: str, limit: int, label: str | None, prefer: Sequence[str] = ()) -> list[Hit]:
        sql = (
            "SELECT label, citation, section, snippet(passages, 0, '[', ']', ' … ', 24), text "
            "FROM passages WHERE passages MATCH ?"
        )
        args: list[str | int] = [query]
        if label:
            sql += " AND label = ?"
            args.append(label)
        order = list(dict.fromkeys(str(p) for p in prefer))
        if order:
            sql += (
                " ORDER BY CASE label "
                + " ".join("WHEN ? THEN ?" for _ in order)
                + " ELSE ? END, rank LIMIT ?"
            )
            for i, doc in enumerate(order):
                args += [doc, i]
            args.append(len(order))
        else:
            sql += " ORDER BY rank LIMIT ?"
        args.append(max(1, min(int(limit), 50)))
        try:
            rows = self._db.execute(sql, args).fetchall()
        except sqlite3.OperationalError as exc:
            raise RuleIndexError(f"search failed: {exc}") from exc
        return [Hit(*r) for r in rows]
