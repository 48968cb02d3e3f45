"""Issue 20 part 8: any phone is the camera.

The ``/phone`` page (paired like a tablet) sends frames to ``POST /api/camera/frames``; the server
reads them as it reads ``--camera``: live frames through the settle detector, a photo per roll at
once.  Tested through the API (bad frames refused and nothing changed; a photo of a rendered roll
read into the Roll panel) and in real Chromium with a fake camera device playing rendered rolls.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from web_helpers import api

from web.phone_camera import PHOTO_MAX_SIDE, RESEARCH_S, FrameError, PhoneCamera, decode_frame

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def _jpeg(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()


def _rendered_roll(pending: dict, seed: int = 3, size: int = 960):
    from companion.vision.roll_frames import render_roll

    rng = np.random.default_rng(seed)
    chosen = {d["uid"]: int(rng.integers(len(d["faces"]))) for d in pending["dice"]}
    scene = render_roll([(d["die"], chosen[d["uid"]]) for d in pending["dice"]], seed=seed, size=size)
    return scene.image, {d["uid"]: d["faces"][chosen[d["uid"]]] for d in pending["dice"]}


def _post_frame(client, data: bytes, headers: dict, photo: bool = False, kind="image/jpeg"):
    return client.post(
        "/api/camera/frames" + ("?photo=1" if photo else ""),
        data=data,
        headers={**headers, "Content-Type": kind},
    )


# -- the API -------------------------------------------------------------------------------------------


def test_frames_need_a_paired_token(client, game):
    img = np.full((240, 320, 3), 128, np.uint8)
    r = _post_frame(client, _jpeg(img), {})
    assert r.status_code == 401 and r.json["error"] == "not_paired"
    r = _post_frame(client, _jpeg(img), {"X-Companion-Token": "forged"})
    assert r.status_code == 403
    assert client.get("/api/camera/phone").json["frames"] == 0


@pytest.mark.parametrize(
    "data, kind, status, needle",
    [
        (b"", "image/jpeg", 400, "empty"),
        (b"not an image at all" * 10, "image/jpeg", 400, "not a JPEG or PNG"),
        (None, "image/jpeg", 400, "at least 64 px"),  # a 32x32 picture
        (b"{}", "application/json", 415, "image/jpeg or image/png"),
    ],
)
def test_bad_frames_are_refused_and_change_nothing(client, host, game, data, kind, status, needle):
    if data is None:
        data = _jpeg(np.zeros((32, 32, 3), np.uint8))
    before = client.get("/api/state").json
    r = _post_frame(client, data, host, photo=True, kind=kind)
    assert r.status_code == status, r.json
    assert needle in r.json["message"] and r.json["field"] == "body"
    after = client.get("/api/state").json
    assert client.get("/api/camera/phone").json["frames"] == 0
    assert after["seq"] == before["seq"] and after.get("reading") == before.get("reading")


def test_a_photo_is_read_whole_and_a_live_frame_at_1920_px(client, host, game):
    big = _jpeg(np.zeros((2400, 3200, 3), np.uint8))
    assert _post_frame(client, big, host).json["size"] == [1920, 1440]
    assert _post_frame(client, big, host, photo=True).json["size"] == [3200, 2400]


def test_before_the_table_learnt_its_dice_a_photo_is_found_but_no_face_is_guessed(app, client, host, game):
    """The default (``BEFORE_ENROLMENT`` "unread"): the table has no profile, so the dice are found and
    every one is left for a tap; the glyph reader is not asked (it reads only the project's renders)."""
    pending = client.get("/api/state").json["pending"]
    assert app.extensions["table_vision"].before_enrolment == "unread"
    image, _ = _rendered_roll(pending)
    r = _post_frame(client, _jpeg(image), host, photo=True)
    assert r.status_code == 200, r.json
    assert len(r.json["dice"]) >= len(pending["dice"]) - 1  # found
    reading = client.get("/api/state").json["reading"]
    assert reading["source"] == "camera" and reading["faces"] == {}
    assert set(reading["unread"]) | set(reading["cocked"]) == {d["uid"] for d in pending["dice"]}
    assert not reading["corrected"]


def test_a_photo_of_the_roll_is_read_for_the_pending_roll(app, client, host, game):
    # the project's own renders, read by the glyph reader (``BEFORE_ENROLMENT`` "reader"): the plumbing
    app.extensions["table_vision"].before_enrolment = "reader"
    pending = client.get("/api/state").json["pending"]
    assert pending["kind"] == "roll"
    image, chosen = _rendered_roll(pending)
    r = _post_frame(client, _jpeg(image), host, photo=True)
    assert r.status_code == 200, r.json
    out = r.json
    assert out["read"] is True and out["size"] == [960, 960]
    assert len(out["dice"]) >= len(pending["dice"]) - 1  # the boxes the phone draws over its view
    reading = client.get("/api/state").json["reading"]
    assert reading["source"] == "camera"
    # the faces read are the faces rendered (two dice of one unit type may swap: compare multisets)
    name = {d["uid"]: d["die"] for d in pending["dice"]}
    wanted = Counter((name[u], f) for u, f in chosen.items())
    got = Counter((name[u], f) for u, f in reading["faces"].items())
    assert sum((wanted & got).values()) >= len(pending["dice"]) - 1, (reading["faces"], chosen)
    assert not set(reading["corrected"])  # nothing is marked as a player's correction
    # the phone is now the table's camera: the top bar says so and the roll panel has the frame
    cam = client.get("/api/state").json["sources"][0]
    assert cam["kind"] == "camera" and cam["via"] == "phone" and cam["state"] == "connected"
    jpg = client.get("/api/frame.jpg")
    assert jpg.status_code == 200 and jpg.mimetype == "image/jpeg"


def test_live_frames_are_read_once_when_the_dice_settle():
    """Live frames go through the settle detector: one reading per roll, none while dice move."""

    class Store:
        def __init__(self):
            self.notices = []

        def notice(self, kind, payload):
            self.notices.append(kind)

    reads = []
    cam = PhoneCamera(
        Store(),
        reader=lambda store, frame: reads.append(frame) or {"faces": {}, "problems": []},
        finder=lambda frame: [[1, 2, 30, 40]],
    )
    rng = np.random.default_rng(0)
    still = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
    t = 0.0
    for _ in range(6):  # dice tumbling: every frame differs
        out = cam.push(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), now=t)
        assert out["read"] is False
        t += 0.1
    answers = []
    for _ in range(10):  # then the table is still for a second
        answers.append(cam.push(still, now=t))
        t += 0.1
    assert len(reads) == 1 and sum(a["read"] for a in answers) == 1
    assert answers[0]["dice"] == [{"box": [1.0, 2.0, 30.0, 40.0]}]
    assert cam.status()["state"] == "connected" and cam.frames == 16


def test_a_frame_over_its_limit_is_refused_naming_the_frame_limit(client, host, game):
    from web.phone import MAX_FRAME_BYTES

    r = _post_frame(client, b"\xff\xd8" + b"\x00" * 300_000, host)  # over the JSON limit, under the frame's
    assert r.status_code == 400 and "not a JPEG or PNG" in r.json["message"]
    r = _post_frame(client, b"\xff\xd8" + b"\x00" * MAX_FRAME_BYTES, host)
    assert r.status_code == 413
    assert f"limit {MAX_FRAME_BYTES} bytes" in r.json["message"], r.json
    assert client.get("/api/camera/phone").json["frames"] == 0
    r = client.post("/api/decisions", data=b"[" * 300_000, content_type="application/json", headers=host)
    assert r.status_code == 413 and "limit 262144 bytes" in r.json["message"]  # a JSON body: the app's limit


def test_decode_frame_scales_large_frames_down():
    big = np.zeros((3000, 4000, 3), np.uint8)
    ok, png = cv2.imencode(".png", big)
    frame = decode_frame(png.tobytes())
    assert frame.shape == (1440, 1920, 3)  # a live frame
    assert decode_frame(png.tobytes(), PHOTO_MAX_SIDE).shape == (3000, 4000, 3)  # a phone's whole photo
    huge = np.zeros((4000, 6000, 3), np.uint8)
    assert decode_frame(cv2.imencode(".png", huge)[1].tobytes(), PHOTO_MAX_SIDE).shape == (2731, 4096, 3)
    with pytest.raises(FrameError, match="not a JPEG or PNG"):
        decode_frame(b"\x00" * 100)


def test_a_strip_that_would_be_under_64_px_once_scaled_is_refused():
    ok, png = cv2.imencode(".png", np.zeros((20000, 70, 3), np.uint8))
    with pytest.raises(FrameError, match="70x20000: scaled to at most 1920 px it is under 64 px"):
        decode_frame(png.tobytes())


# -- real Chromium with a fake camera ----------------------------------------------------------------


def _api(server, method, path, body=None, token=None):
    return api(server, method, path, body, token, timeout=20)


def _write_y4m(path, frames, fps: int = 10) -> None:
    """A YUV4MPEG2 clip (what Chromium's fake camera plays) of BGR frames."""
    h, w = frames[0].shape[:2]
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in frames:
            f.write(b"FRAME\n")
            f.write(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())


def _wait_attr(page, name: str, at_least: int, timeout: float = 90.0) -> int:
    deadline = time.monotonic() + timeout
    value = 0
    while time.monotonic() < deadline:
        value = int(page.get_attribute("body", f"data-{name}") or 0)
        if value >= at_least:
            return value
        time.sleep(0.2)
    raise AssertionError(
        f"body data-{name} stayed at {value} (wanted >= {at_least}); message: {page.inner_text('#message')!r}"
    )


@pytest.mark.browser
@pytest.mark.slow
def test_phone_page_streams_a_fake_camera_and_the_roll_is_read(serve, tmp_path):
    import shutil

    from playwright.sync_api import sync_playwright

    from companion.vision.roll_frames import roll_video

    # live video needs a secure context: localhost; the project's renders, read by the glyph reader
    server = serve(extra=("--host", "127.0.0.1", "--before-enrolment", "reader"))
    token = server.host_url.split("token=")[1]
    _api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)
    pending = _api(server, "GET", "/api/state")["pending"]
    dice = [(d["die"], 0) for d in pending["dice"]]
    frames, _ = roll_video(dice, seed=2, fps=10, move_s=1.0, still_s=3.0, size=480)
    clip = tmp_path / "table.y4m"
    _write_y4m(clip, [cv2.resize(f, (640, 480)) for f in frames])
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=shutil.which("chromium"),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--use-fake-ui-for-media-stream",
                "--use-fake-device-for-media-stream",
                f"--use-file-for-fake-video-capture={clip}",
            ],
        )
        try:
            ctx = b.new_context(viewport={"width": 390, "height": 844})
            ctx.grant_permissions(["camera"])
            page = ctx.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{server.url}/phone?token={token}")
            page.wait_for_selector("body[data-mode=live]", state="attached", timeout=60_000)
            _wait_attr(page, "sent", 3)
            _wait_attr(page, "reads", 1, timeout=120)  # the dice settled and the frame was read
            assert int(page.get_attribute("body", "data-found") or 0) >= 1
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "phone-live.png"))
            assert errors == []
        finally:
            b.close()
    st = _api(server, "GET", "/api/state")
    assert st["reading"]["source"] == "camera" and st["reading"]["faces"]
    assert st["sources"][0]["via"] == "phone"


@pytest.mark.browser
@pytest.mark.slow
def test_phone_page_photo_per_roll_and_pairing(browser, serve, tmp_path):
    server = serve(extra=("--before-enrolment", "reader"))  # the project's renders: the glyph reader
    token = server.host_url.split("token=")[1]
    _api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)
    pending = _api(server, "GET", "/api/state")["pending"]
    image, _ = _rendered_roll(pending, seed=5)
    photo = tmp_path / "roll.jpg"
    # a phone's photo is large: it is sent and read whole (a live frame would be cut to 1920 px)
    cv2.imwrite(str(photo), cv2.resize(image, (2880, 2880), interpolation=cv2.INTER_CUBIC))
    code = _api(server, "GET", "/api/pairing", token=token)["code"]

    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(f"{server.url}/phone?mode=photo")
    page.wait_for_selector("#pair:not([hidden])")  # a stranger's phone is asked to pair first
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(
            urllib.request.Request(server.url + "/api/camera/frames", data=b"x", method="POST"), timeout=10
        )
    page.fill("#pair-code", code)
    page.click("#pair-form button")
    page.wait_for_selector("body[data-mode=photo]", state="attached")
    assert page.is_visible("label[for=photo-input]")
    page.set_input_files("#photo-input", str(photo))
    _wait_attr(page, "reads", 1)
    assert "read" in page.inner_text("#message")
    assert page.get_attribute("body", "data-frame") == "2880x2880"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "phone-photo.png"))
    st = _api(server, "GET", "/api/state")
    assert st["reading"]["source"] == "camera" and len(st["reading"]["faces"]) >= len(pending["dice"]) - 1


def test_a_read_frame_is_not_searched_for_dice_a_second_time():
    """A settled frame is searched once, by the reading: the phone draws the dice it read."""

    class Store:
        def notice(self, kind, payload):
            pass

    finds, reads = [], []
    cam = PhoneCamera(
        Store(),
        reader=lambda store, frame: (
            reads.append(frame)
            or {"faces": {"u1": "2 Melee"}, "problems": [], "boxes": {"u1": [5.04, 6, 40, 41]}}
        ),
        finder=lambda frame: finds.append(frame) or [[1, 2, 30, 40]],
    )
    frame = np.zeros((240, 320, 3), np.uint8)
    out = cam.push(frame, photo=True, now=0.0)
    assert out["read"] is True and len(reads) == 1
    assert finds == [] and out["dice"] == [{"box": [5.0, 6.0, 40.0, 41.0]}]
    # a frame that is not read (the reader has no roll waiting) is still searched for the phone's view
    cam._reader = lambda store, frame: None
    out = cam.push(frame, photo=True, now=1.0)
    assert out["read"] is False and len(finds) == 1 and out["dice"] == [{"box": [1.0, 2.0, 30.0, 40.0]}]


def test_a_still_table_is_searched_once_until_something_moves():
    """Live frames of a table that does not move are searched for dice once; motion searches again."""

    class Store:
        def notice(self, kind, payload):
            pass

    finds = []
    cam = PhoneCamera(
        Store(),
        reader=lambda store, frame: None,
        finder=lambda frame: finds.append(frame) or [[1, 2, 30, 40 + len(finds)]],
    )
    rng = np.random.default_rng(1)
    table = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
    outs = [cam.push(table, now=0.1 * k) for k in range(8)]  # a quiet table, streamed
    assert len(finds) == 1 and all(o["dice"] == [{"box": [1.0, 2.0, 30.0, 41.0]}] for o in outs)
    moved = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
    assert cam.push(moved, now=1.0)["dice"] == [{"box": [1.0, 2.0, 30.0, 42.0]}]  # it moved: searched
    still = [cam.push(moved, now=1.1 + 0.1 * k)["dice"] for k in range(5)]
    assert len(finds) == 3 and still[-1] == [
        {"box": [1.0, 2.0, 30.0, 43.0]}
    ]  # searched once still, then kept
    cam.push(moved, now=1.5 + RESEARCH_S)  # a long quiet while: searched again all the same
    assert len(finds) == 4


def test_the_phone_is_told_when_the_dice_are_few_pixels_across():
    """The median die under 40 px across: the answer says so, with the size, and how to do better."""

    class Store:
        def notice(self, kind, payload):
            pass

    frame = np.zeros((240, 320, 3), np.uint8)
    small = PhoneCamera(
        Store(), reader=lambda store, f: None, finder=lambda f: [[0, 0, 30, 20], [50, 50, 82, 80]]
    )
    out = small.push(frame, now=0.0)
    assert "about 31 px across" in out["message"] and "closer" in out["message"]
    large = PhoneCamera(
        Store(), reader=lambda store, f: None, finder=lambda f: [[0, 0, 60, 50], [50, 50, 130, 120]]
    )
    assert "px across" not in large.push(frame, now=0.0)["message"]
    nothing = PhoneCamera(Store(), reader=lambda store, f: None, finder=lambda f: [])
    assert nothing.push(frame, now=0.0)["message"] == ""


def test_die_sides_and_the_note():
    from companion.vision.die_pixels import SMALL_DIE_PX, die_sides, small_dice_note

    assert die_sides([[0, 0, 10, 30], [5, 5, 50, 15]]).tolist() == [30.0, 45.0]
    assert small_dice_note([]) is None
    assert small_dice_note([[0, 0, SMALL_DIE_PX, 10]]) is None
    assert str(round(SMALL_DIE_PX - 1)) in small_dice_note([[0, 0, SMALL_DIE_PX - 1, 10]])


def test_a_camera_says_the_frame_size_it_gives(tmp_path):
    """The device may not give the size asked: the camera's status names the size of its frames."""
    from web.sources import CameraSource

    class Store:
        def __init__(self):
            self.notices = []

        def notice(self, kind, payload):
            self.notices.append(payload)

    video = tmp_path / "cam.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    for _ in range(3):
        out.write(np.full((120, 160, 3), 60, np.uint8))
    out.release()
    store = Store()
    cam = CameraSource(str(video), store)
    cam._maybe_read = lambda frame: None  # no roll to read: only the frames' size is at stake
    cam._open()
    cam._poll()
    cam._poll()
    assert cam.status()["message"].startswith("160x120 frames: under 1280 px wide")
    assert sum("160x120" in n.get("message", "") for n in store.notices) == 1  # said once per connection


def test_a_turned_phone_reads_the_turned_frame_and_draws_on_the_picture_it_sent():
    """``serve --turn 90``: the phone's frame is read turned (far side at the top); the boxes it gets back
    lie on the picture it sent."""
    from companion.vision.camera_turn import SourceTurn

    class Store:
        def notice(self, kind, payload):
            pass

    seen = []
    cam = PhoneCamera(
        Store(), reader=lambda store, f: None, finder=lambda f: seen.append(f.shape) or [[10, 5, 31, 20]]
    )
    cam.turn = SourceTurn(90)
    sent = np.zeros((240, 320, 3), np.uint8)  # landscape from the phone
    out = cam.push(sent, now=0.0)
    assert seen == [(320, 240, 3)] and cam.latest_frame().shape == (320, 240, 3)
    # the box found in the turned frame, where it lies in the frame sent: x from y, y from W - x
    assert out["dice"] == [{"box": [5.0, 240 - 31.0, 20.0, 240 - 10.0]}]
    assert cam.status()["turn"] == 90 and "turn_advice" not in cam.status()


def test_a_camera_turns_its_frames_and_says_its_turn(tmp_path):
    from companion.vision.camera_turn import SourceTurn
    from web.sources import CameraSource

    class Store:
        def notice(self, kind, payload):
            pass

    video = tmp_path / "cam.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    for _ in range(2):
        out.write(np.full((120, 160, 3), 60, np.uint8))
    out.release()
    read = []
    cam = CameraSource(str(video), Store())
    cam.turn = SourceTurn(270)
    cam._maybe_read = lambda frame: read.append(frame.shape)
    cam._open()
    cam._poll()
    assert read == [(160, 120, 3)] and cam.latest_frame().shape == (160, 120, 3)
    status = cam.status()
    assert status["turn"] == 270 and status["turn_check"]["dice"] == 0


def test_a_battle_dice_roll_read_turned_tells_the_table_to_turn_the_camera(client, host, app):
    """Standard dice seen through a camera a quarter turn off: the readings feed the source's turn check,
    which names the turn that puts the far side at the top, and the frame's values are not kept."""
    from companion.vision.camera_turn import MIN_DICE, TurnCheck, turn_image
    from companion.vision.synth.standard_styles import mosaic_table
    from web.play import camera_reading

    r = client.post("/api/games", json={"players": ["Reds", "Blues"], "game": "battle_dice"}, headers=host)
    assert r.status_code == 201, r.json
    pending = client.get("/api/state").json["pending"]
    # a roll of twelve d20s of a held-out style seen at 30-60 degrees (far side at the top), laid on a
    # plain table: more than the check's MIN_DICE
    frame = mosaic_table(
        Path(__file__).resolve().parents[1] / "vision" / "fixtures" / "standard_d20", every=6, count=12
    )
    store = app.extensions["game_store"]
    upright, turned = TurnCheck(), TurnCheck()
    with app.app_context():
        camera_reading(store, frame, standard_model="polyhedral-oblique", turn_check=upright)
        sideways = camera_reading(
            store, turn_image(frame, 90), standard_model="polyhedral-oblique", turn_check=turned
        )
    assert upright.dice >= MIN_DICE and turned.dice >= MIN_DICE
    assert upright.needed() == 0 and upright.advice() is None
    assert turned.needed() == 270 and "--turn 270" in turned.advice()
    # a frame the check finds turned is not trusted: every die is left to tap, none guessed
    assert sideways["faces"] == {} and len(sideways["problems"]) == len(pending["dice"])
