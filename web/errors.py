"""JSON errors for the API: one shape for every failure, never a traceback.

Every error answered under ``/api`` is ``{"error": CODE, "message": TEXT}`` (plus ``field`` when a
request body field is at fault) with a 4xx status; anything unexpected becomes a bare 500 whose
details go to the server log only.
"""

from __future__ import annotations

import logging
import re

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger("companion.web")


ECHO_LIMIT = 80  # characters of the client's own input an error message repeats
MESSAGE_LIMIT = 400
_LONG = re.compile(rf"'([^']{{{ECHO_LIMIT + 1},}})'|\S{{{ECHO_LIMIT + 1},}}")


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """text cut to about ``limit`` characters, saying how long it was."""
    text = str(text)
    return text if len(text) <= limit else f"{text[: limit - 1]}… ({len(text)} characters)"


def clip_message(message: str) -> str:
    """An error message that repeats at most ECHO_LIMIT characters of any long word or quoted
    input (a 200 KB field name comes back as its first 80 characters and its length)."""
    message = _LONG.sub(lambda m: f"'{clip(m[1])}'" if m[1] is not None else clip(m[0]), str(message))
    return clip(message, MESSAGE_LIMIT)


class APIError(Exception):
    """An error the client caused, with the status and a message that names what is wrong."""

    status = 400
    code = "bad_request"

    def __init__(
        self, message: str, *, status: int | None = None, code: str | None = None, field: str | None = None
    ):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.field = field

    def to_dict(self) -> dict:
        body = {"error": self.code, "message": clip_message(self.message)}
        if self.field:
            body["field"] = clip(self.field)
        return body


class Forbidden(APIError):
    status = 403
    code = "forbidden"


class NotFound(APIError):
    status = 404
    code = "not_found"


class Conflict(APIError):
    status = 409
    code = "conflict"


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(APIError)
    def _api_error(exc: APIError):
        return jsonify(exc.to_dict()), exc.status, getattr(exc, "headers", None) or {}

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        if not _wants_json():
            return exc
        code = (exc.name or "error").lower().replace(" ", "_")
        message = exc.description or exc.name
        if exc.code == 413:
            # the limit of this request (a route may raise it: a phone's frame, web.phone)
            message = f"request body too large (limit {request.max_content_length} bytes)"
        return jsonify({"error": code, "message": message}), exc.code

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        if _wants_json():
            return jsonify(
                {
                    "error": "internal_error",
                    "message": "the server hit an unexpected error; the game was not changed",
                }
            ), 500
        return "Internal error; the game was not changed.", 500
