"""Whether a place holds a die's face or only ground: the colour inside its edge against beyond its corners."""
from __future__ import annotations

import pytest

from vision.reader.ground import GROUND_RING, face_against_ground
from vision.reader.policy import DEFAULT_POLICY as P
WHITE = (245, 245, 245)  # the drawn dice's body


@pytest.mark.parametrize("seed", range(4))  # each seed turns the die another way
def test_a_big_die_differs_from_its_ground_whatever_its_turn(draw_table, seed):
    frame = draw_table([(320, 240, 1)], side=200, seed=seed)
    assert face_against_ground(frame, 320, 240, 200) > 20 * P.ground_like


def test_a_small_die_alone_in_a_big_square_of_plain_ground_has_the_grounds_colour(draw_table):
    """What the close-up look can take for the pip of a big 1: its square is ground through and through."""
    frame = draw_table([(320, 240, 5)], side=36, seed=2)
    assert face_against_ground(frame, 320, 240, 140) < P.ground_like
    assert face_against_ground(frame, 320, 240, 36) > 20 * P.ground_like  # the die itself is not ground


def test_a_die_the_colour_of_its_ground_shows_no_difference(draw_table):
    """Nothing but colour is weighed: a white die on white ground looks like ground (the reader then asks)."""
    frame = draw_table([(320, 240, 1)], side=200, background=WHITE, seed=3)
    assert face_against_ground(frame, 320, 240, 200) < P.ground_like


def test_a_ring_cut_by_the_frame_edge(draw_table):
    """A ground ring cut by the frame's edge uses what is inside it; one wholly outside says nothing."""
    frame = draw_table([(100, 100, 1)], side=160, seed=4)
    assert face_against_ground(frame, 100, 100, 160) > 20 * P.ground_like  # its ground ring half outside the frame
    assert face_against_ground(frame, 640 + GROUND_RING[1] * 50, 240, 100) == 0.0
