"""The camera path of a Battle Dice roll: a settled frame of standard dice is read with the
``polyhedral`` numeral reader (``companion.vision.numerals``) and staged as the roll's reading."""

from __future__ import annotations

import numpy as np

from companion.vision.synth.numerals import SIDES, random_die, render_standard_scene


def test_camera_frame_of_standard_dice_is_staged_for_a_battle_dice_roll(client, host, app):
    from web.play import camera_reading

    r = client.post("/api/games", json={"players": ["Reds", "Blues"], "game": "battle_dice"}, headers=host)
    assert r.status_code == 201, r.json
    pending = client.get("/api/state").json["pending"]
    assert pending["kind"] == "roll"
    rng = np.random.default_rng(4)
    dice = [random_die(rng, d["die"]) for d in pending["dice"]]
    frame, drawn, _ = render_standard_scene(rng, dice, ppm=3.4, tilt_deg=0.0, clutter=False, photo=False)
    store = app.extensions["game_store"]
    with app.app_context():
        reading = camera_reading(store, frame, standard_model="polyhedral")  # a frame drawn from above
    assert reading is not None and reading["source"] == "camera"
    by_uid = {d["uid"]: d for d in pending["dice"]}
    staged = reading["faces"]
    assert staged, "no die of the roll was read from the frame"
    for uid, face in staged.items():  # every face read is a face of that die
        assert face in by_uid[uid]["faces"]
        assert 1 <= int(face) <= SIDES[by_uid[uid]["die"]]
    # the values drawn, by die size (dice of one size are interchangeable)
    drawn_values = {}
    for d in drawn:
        drawn_values.setdefault(d.die.kind, []).append(str(d.die.value))
    right = sum(face in drawn_values.get(by_uid[uid]["die"], []) for uid, face in staged.items())
    assert right >= 1
    # nothing is part of the game until the reading is confirmed
    assert client.get("/api/state").json["seq"] == 1
