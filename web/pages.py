"""The pages: one shell served at every page path; the script shows the view the path names.

Also what makes the page a home-screen app: the web app manifest and the service worker (served
from the root so that it may control every page; it caches the shell, never the API)."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template, send_from_directory

bp = Blueprint("pages", __name__)

VIEWS = ("table", "roll", "odds", "dispute", "new", "host")

MANIFEST = {
    "name": "Dragon Dice companion",
    "short_name": "Companion",
    "description": "Referee, dice reader and rules at the Dragon Dice table",
    "start_url": "/table",
    "scope": "/",
    "display": "standalone",
    "orientation": "any",
    "background_color": "#161a22",
    "theme_color": "#11141a",
    "icons": [
        {"src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png"},
        {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png"},
        {"src": "/static/icon.svg", "sizes": "any", "type": "image/svg+xml"},
    ],
}


@bp.get("/")
def index():
    return render_template("shell.html", view="table")


@bp.get("/<any(table, roll, odds, dispute, new, host):view>")
def view(view: str):
    return render_template("shell.html", view=view)


@bp.get("/manifest.webmanifest")
def manifest():
    resp = jsonify(MANIFEST)
    resp.mimetype = "application/manifest+json"
    return resp


@bp.get("/sw.js")
def service_worker():
    resp = send_from_directory(current_app.static_folder, "sw.js", mimetype="text/javascript", max_age=0)
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Service-Worker-Allowed"] = "/"
    return resp
