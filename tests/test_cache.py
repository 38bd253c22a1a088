"""explorer/cache.py: a figure is built once per distinct input, and again when any input changes."""
import pandas as pd

from explorer import cache

BUILT: list = []


def _count(frame, label="t"):
    BUILT.append(label)
    return len(BUILT)


def test_equal_frames_share_a_figure_and_any_change_rebuilds_it():
    frame = pd.DataFrame({"n": [1024, 2048], "HBM MB": [0.5, 1.0], "kernel": ["flash", "plain"]})
    first = cache.figure(_count, frame)
    assert cache.figure(_count, frame.copy()) == first, "an equal frame rebuilt the figure"
    changed = [frame.assign(**{"HBM MB": [0.5, 1.0000001]}), frame.rename(columns={"HBM MB": "HBM GB"}),
               frame.astype({"n": float}), frame.iloc[::-1], frame.assign(kernel=["flash", "mem"])]
    keys = {cache.figure(_count, f) for f in changed}
    assert len(keys) == len(changed) and first not in keys, "a changed frame reused a figure"
    assert cache.figure(_count, frame, label="u") not in keys | {first}, "another argument reused a figure"
