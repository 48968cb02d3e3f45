"""Any phone is the camera: the ``/phone`` page and ``POST /api/camera/frames``.

The page (paired like a tablet) shows the phone's camera with the dice found drawn over it and
sends frames to the server, which reads them as it reads ``--camera`` (``web.phone_camera``).

Browsers give a page the live camera only in a secure context (HTTPS, or ``localhost`` on the
phone itself).  A phone on the table's network opens ``http://LAN-ADDRESS:PORT/phone``, which is
not one, so the page falls back to **a photo per roll**: the phone's own camera app takes the
picture (``<input type=file capture>``, allowed on plain HTTP) and the page sends it.  Live video
is used where the browser allows it: ``companion serve --https`` (the table's own certificate,
trusted once by the phone at ``/trust``: ``web.certs``, ``web.tls``) or the server's own screen.
``?mode=photo`` forces the photo path.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template, request

from .errors import APIError
from .phone_camera import LIVE_MAX_SIDE, PHOTO_MAX_SIDE, FrameError, decode_frame
from .security import require

bp = Blueprint("phone", __name__)

#: A phone photo may be larger than a JSON body: a whole 12-megapixel picture is 2-5 MB as a JPEG.
MAX_FRAME_BYTES = 12 * 1024 * 1024


def phone_camera():
    return current_app.extensions["sources"].phone


@bp.get("/phone")
def page():
    return render_template("phone.html")


@bp.post("/api/camera/frames")
@require("tablet")
def push_frame():
    """One frame from the phone (JPEG/PNG bytes as the body; ``?photo=1``: read it now)."""
    request.max_content_length = MAX_FRAME_BYTES
    kind = (request.mimetype or "").lower()
    if kind not in ("image/jpeg", "image/png", "application/octet-stream"):
        raise APIError(
            f"send the frame as image/jpeg or image/png, not {kind[:40] or 'no content type'}",
            status=415,
            code="bad_frame",
            field="body",
        )
    photo = request.args.get("photo", "0")
    if photo not in ("0", "1"):
        raise APIError("photo must be 0 or 1", field="photo")
    device = (request.headers.get("X-Companion-Device") or "")[:40] or None
    try:
        frame = decode_frame(request.get_data(cache=False), PHOTO_MAX_SIDE if photo == "1" else LIVE_MAX_SIDE)
    except FrameError as exc:
        raise APIError(str(exc), code="bad_frame", field="body") from None
    out = phone_camera().push(frame, photo=photo == "1", device=device)
    out["size"] = [int(frame.shape[1]), int(frame.shape[0])]
    return jsonify(out)


@bp.get("/api/camera/phone")
def phone_status():
    return jsonify(phone_camera().status())
