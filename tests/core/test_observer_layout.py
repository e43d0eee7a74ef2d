"""Observers declare their flat vector with ``Observer.lay_out``: named blocks, in order, each
start an attribute named by the block in capitals."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.core.observer import Observer


def test_lay_out_gives_each_block_its_start_and_the_vector_its_length():
    observer = Observer({})
    observer.lay_out(hand=4, scores=2, turn=1)
    assert (observer.HAND, observer.SCORES, observer.TURN, observer.size) == (0, 4, 6, 7)
    vector = np.arange(7.0)
    assert observer.layout.view(vector, "scores").tolist() == [4.0, 5.0]
    assert observer.layout.name_at(6) == "turn" and observer.layout.name_at(7) == "entry 7"


@pytest.mark.parametrize("blocks", [{"hand": 1, "HAND": 2}, {"layout": 3}])
def test_a_block_that_would_replace_an_attribute_is_refused_by_name(blocks):
    class WithLayoutConstant(Observer):
        LAYOUT = "a class constant"

    with pytest.raises(ValueError, match=r"observation block '(HAND|layout)' would replace"):
        WithLayoutConstant({}).lay_out(**blocks)


@pytest.mark.parametrize("game", envs.GAMES)
def test_every_games_blocks_tile_its_vector_and_name_their_attributes(game):
    """Under each option set the game is tested with, the blocks follow each other with no
    gap from 0 to ``size`` (the observation space's length), and every block's capitalised
    name is its start."""
    description = envs.describe(game)
    for options in description.test_options.all():
        observer = description.make_observer(options)
        end = 0
        for name, (start, stop) in observer.layout.blocks.items():
            assert start == end and stop > start, (options, name)
            assert getattr(observer, name.upper()) == start, (options, name)
            end = stop
        assert end == observer.size == observer.space().shape[0], options
