"""Generated scenes of the real setting: labelled stills and frame sequences.

Translucent red casino dice with white pips on green felt against the rail,
three dice at the bottom of a hazard cage behind its wire, dice tumbling and
coming to rest, with lighting, blur, glare and noise. They feed the tests, the
settle benchmark and the demo camera (:class:`vision.sources.generated.GeneratedSource`);
they do not replace real photographs.
"""
from vision.scenes.render import (
    Camera,
    DieLabel,
    DieState,
    Hand,
    SceneLabel,
    SceneRenderer,
    SceneState,
    place_dice,
    render_scene,
)
from vision.scenes.table import Table, make_table

__all__ = [
    "Camera", "DieLabel", "DieState", "Hand", "SceneLabel", "SceneRenderer", "SceneState", "Table",
    "make_table", "place_dice", "render_scene",
]
