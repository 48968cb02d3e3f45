"""A table profile keeps the newest crops of each face, so a new embedding network learns the table's
faces again from them instead of asking the players to enrol their dice again (a model update keeps
what the table learnt).  Profiles without kept crops, or whose crops the new network cannot read, are
refused naming the file, as before."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.profile import KEPT_CROPS, ProfileError, TableProfile, face_label


class Embedder:
    """A stand-in embedding network: a fixed random projection of the crop's pixels, unit length."""

    def __init__(self, seed: int, dim: int = 6, size: int = 8):
        self.dim, self.size = dim, size
        self.w = np.random.default_rng(seed).normal(size=(size * size * 3, dim))
        self.path = f"net-{seed}"

    def __call__(self, crops):
        crops = np.asarray(crops)
        if crops.shape[1:] != (self.size, self.size, 3):
            raise ValueError(f"expected crops (N, {self.size}, {self.size}, 3), not {crops.shape}")
        e = crops.reshape(len(crops), -1).astype(float) / 255 @ self.w
        return e / np.linalg.norm(e, axis=1, keepdims=True), np.zeros(len(crops))


@pytest.fixture
def lesson(catalogue):
    die = catalogue.find("Dwarves/Mammoth Rider")
    rng = np.random.default_rng(3)
    labels = [face_label(die, k) for k in (0, 1, 1, 2, 2, 2)]
    crops = rng.integers(0, 256, size=(len(labels), 8, 8, 3), dtype=np.uint8)
    return die, crops, labels


def test_a_profile_keeps_its_crops_through_save_and_load(tmp_path, lesson):
    die, crops, labels = lesson
    old = Embedder(1)
    prof = TableProfile("net-1", old.dim)
    prof.learn(crops, labels, old)
    prof.save(tmp_path / "p.npz")
    back = TableProfile.load(tmp_path / "p.npz", "net-1")
    assert back.relearnt_from is None
    for key in prof.keys():
        assert back.kept_crops(key) == prof.kept_crops(key) == prof.sightings(key)
        assert back.prototype(key) == pytest.approx(prof.prototype(key))
    assert back.copy().kept_crops(labels[-1].key()) == 3


def test_only_the_newest_crops_of_a_face_are_kept(lesson):
    die, crops, labels = lesson
    net = Embedder(1)
    prof = TableProfile("net-1", net.dim)
    many = np.repeat(crops[:1], KEPT_CROPS + 4, 0)
    many[:, 0, 0, 0] = np.arange(len(many))  # each crop told apart by one pixel
    prof.learn(many, [labels[0]] * len(many), net)
    key = labels[0].key()
    assert prof.sightings(key) == KEPT_CROPS + 4 and prof.kept_crops(key) == KEPT_CROPS
    assert [int(c[0, 0, 0]) for c in prof._crops[key]] == list(range(4, KEPT_CROPS + 4))


def test_a_new_network_learns_the_profile_again_from_its_crops(tmp_path, lesson):
    die, crops, labels = lesson
    old, new = Embedder(1), Embedder(2, dim=5)
    prof = TableProfile("net-1", old.dim, {"scale": 9.0})
    prof.learn(crops, labels, old)
    prof.save(tmp_path / "p.npz")
    with pytest.raises(ProfileError, match="learnt with embedding network net-1, not net-2: enrol"):
        TableProfile.load(tmp_path / "p.npz", "net-2")  # no network to learn it again with
    again = TableProfile.load(tmp_path / "p.npz", "net-2", new)
    fresh = TableProfile("net-2", new.dim, {"scale": 9.0})
    fresh.learn(crops, labels, new)  # what the new network learns from the same crops
    assert again.relearnt_from == "net-1" and again.embedder_id == "net-2" and again.dim == 5
    assert again.keys() == fresh.keys() and again.settings["scale"] == 9.0
    for key in fresh.keys():
        assert again.sightings(key) == fresh.sightings(key)
        assert again.prototype(key) == pytest.approx(fresh.prototype(key))
        assert not np.allclose(again.prototype(key)[:5], prof.prototype(key)[:5])  # not the old sums
    # it reads with the new network as the fresh one does
    q = new(crops[3:4])[0][0]
    assert again.read_die(q, die) == fresh.read_die(q, die)
    again.save(tmp_path / "p.npz")  # saved, it loads under the new network as it is
    assert TableProfile.load(tmp_path / "p.npz", "net-2").relearnt_from is None


def test_a_profile_without_kept_crops_or_with_crops_the_network_cannot_read_is_refused(tmp_path, lesson):
    die, crops, labels = lesson
    old = Embedder(1)
    bare = TableProfile("net-1", old.dim)
    bare.add(old(crops)[0], labels)  # sightings with no crops (a profile made before crops were kept)
    bare.learn(crops[:1], labels[:1], old)  # one face with crops
    bare.save(tmp_path / "bare.npz")
    before = (tmp_path / "bare.npz").read_bytes()
    with pytest.raises(ProfileError, match=r"bare\.npz .* kept no crops of 2 of its 3 faces .*enrol"):
        TableProfile.load(tmp_path / "bare.npz", "net-2", Embedder(2))
    assert (tmp_path / "bare.npz").read_bytes() == before  # nothing changed
    prof = TableProfile("net-1", old.dim)
    prof.learn(crops, labels, old)
    prof.save(tmp_path / "p.npz")
    with pytest.raises(
        ProfileError, match=r"p\.npz: its kept crops cannot be read by embedding network net-3"
    ):
        TableProfile.load(tmp_path / "p.npz", "net-3", Embedder(3, size=16))
