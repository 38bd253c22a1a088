import pytest

from flashviz.model.config import DTYPE_BYTES, Config


@pytest.mark.parametrize("changes, fragment", [
    ({"Br": 2048}, "Br=2048 is larger than n=1024"),
    ({"Bc": 0}, "Bc must be at least 1"),
    ({"n": 2**22 + 1}, "above the largest supported size"),
    ({"dtype": "int8"}, "dtype must be one of"),
    ({"loop_order": "fa3"}, "loop_order must be 'fa2' or 'fa1'"),
    ({"compute": "float16"}, "compute must be one of"),
    ({"d": 2.5}, "d must be a whole number"),
    ({"sram_bytes": True}, "sram_bytes must be a whole number"),
])
def test_invalid_config_names_what_to_change(changes, fragment):
    with pytest.raises(ValueError, match=fragment):
        Config(**changes)


def test_config_is_hashable_and_frozen():
    cfg = Config()
    assert hash(cfg) == hash(Config())
    with pytest.raises(AttributeError):
        cfg.n = 5


def test_element_sizes_follow_dtype():
    assert {k: Config(dtype=k).element_bytes for k in DTYPE_BYTES} == {
        "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}


def test_tile_counts_round_up_for_partial_tiles():
    cfg = Config(n=100, Br=32, Bc=48)
    assert (cfg.Tr, cfg.Tc) == (4, 3)
