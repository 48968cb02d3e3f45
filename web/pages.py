"""The pages: one shell served at every page path; the script shows the view the path names."""

from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("pages", __name__)

VIEWS = ("table", "roll", "odds", "dispute", "new", "host")


@bp.get("/")
def index():
    return render_template("shell.html", view="table")


@bp.get("/<any(table, roll, odds, dispute, new, host):view>")
def view(view: str):
    return render_template("shell.html", view=view)
