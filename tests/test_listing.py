"""The listing beside the tile player really runs: exactly its source, against standard
attention, the closed-form costs, each Break-it bug's symptom, and as a standalone script."""
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashviz.model import costs
from flashviz.teach import demos
from flashviz.run import listing
from flashviz.run.attention import random_qkv, standard_attention
from flashviz.teach.bugs import BUGS
from flashviz.model.config import KB, Config

ORDERS = ("fa2", "fa1")


@st.composite
def configs(draw):
    n = draw(st.integers(1, 80))
    return Config(n=n, d=draw(st.integers(1, 12)), Br=draw(st.integers(1, n)), Bc=draw(st.integers(1, n)),
                  sram_bytes=draw(st.sampled_from([64, 1 * KB, 96 * KB])), causal=draw(st.booleans()),
                  loop_order=draw(st.sampled_from(ORDERS)), compute="float64")


@st.composite
def masked_configs(draw):
    """configs() in FlashAttention-2's order with a two-sided window (each side bounded or not), packed documents
    and a sink, each or none."""
    cfg = draw(configs())
    n = cfg.n
    docs: tuple = ()
    if draw(st.booleans()):
        cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=4))) if n > 1 else []
        docs = tuple(b - a for a, b in zip([0, *cuts], [*cuts, n]))
    side = st.one_of(st.none(), st.integers(0, n))
    return cfg.with_(loop_order="fa2", window_left=draw(side), window_right=draw(side), docs=docs,
                     sink=draw(st.one_of(st.none(), st.floats(-6, 10))))


@settings(max_examples=80, deadline=None)
@given(masked_configs(), st.integers(0, 2**16))
def test_the_masked_listing_equals_masked_standard_attention_and_its_closed_form_counts(cfg, seed):
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    O, hbm = listing.run(cfg, Q, K, V)
    err = np.abs(O - standard_attention(Q, K, V, cfg)).max()
    assert err < 1e-12, f"max |diff| {err:.2e} at {cfg}"
    want = costs.flash_cost(cfg)
    got = (hbm.moved, hbm.spilled, hbm.flops, hbm.working_set, hbm.peak)
    assert got == (want.moved, want.spilled, want.flops, want.working_set, want.peak), cfg
    _, _, steps = listing.record(cfg, Q, K, V)
    assert len(steps) == costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).tiles


def test_a_window_or_a_sink_takes_the_masked_listing_and_only_in_fa2s_order():
    plain = Config(n=64, d=8, Br=16, Bc=16)
    assert listing.listing_of(plain) == "fa2" and listing.listing_of(plain.with_(causal=True)) == "fa2"
    assert listing.listing_of(plain.with_(loop_order="fa1", causal=True)) == "fa1"
    for masked in (plain.with_(causal=True, window_left=20), plain.with_(docs=(30, 34)), plain.with_(sink=0.5)):
        assert listing.listing_of(masked) == "fa2_mask"
        with pytest.raises(ValueError, match="FlashAttention-2's order"):
            listing.listing_of(masked.with_(loop_order="fa1"))
    with pytest.raises(ValueError, match="no block mask"):
        listing.listing_of(plain.with_(blocks=frozenset({(0, 0), (1, 1)})))


def test_the_listing_run_is_exactly_the_listed_source():
    for order in ORDERS:
        flash_forward, _ = listing.load(listing.source(order))
        assert flash_forward.__code__.co_filename == "<listing>"
        assert listing.source(order) == listing.LISTINGS[order]


@settings(max_examples=60, deadline=None)
@given(configs(), st.integers(0, 2**16))
def test_output_equals_standard_attention_to_1e_12(cfg, seed):
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    O, _ = listing.run(cfg, Q, K, V)
    err = np.abs(O - standard_attention(Q, K, V, cfg)).max()
    assert err < 1e-12, f"max |diff| {err:.2e} at {cfg}"


@settings(max_examples=60, deadline=None)
@given(configs())
def test_counts_equal_flash_cost(cfg):
    _, hbm = listing.run(cfg, *random_qkv(cfg.n, cfg.d))
    want = costs.flash_cost(cfg)
    got = (hbm.moved, hbm.spilled, hbm.flops, hbm.working_set, hbm.peak)
    assert got == (want.moved, want.spilled, want.flops, want.working_set, want.peak), cfg


@settings(max_examples=20, deadline=None)
@given(configs())
def test_recording_steps_through_every_computed_tile_without_changing_the_run(cfg):
    Q, K, V = random_qkv(cfg.n, cfg.d)
    O, _, steps = listing.record(cfg, Q, K, V)
    assert len(steps) == costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.causal).tiles
    assert np.array_equal(O, listing.run(cfg, Q, K, V)[0])


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("bug", sorted(BUGS))
def test_each_bug_edits_the_listing_and_the_edit_shows_as_a_diff(bug, order):
    diff = listing.diff(bug, order)
    assert diff.startswith("--- listing.py") and "+" in diff and "# BUG" in diff
    assert listing.changed_lines(bug, order)


@pytest.mark.parametrize("order", ORDERS)
def test_no_rescale_weights_no_longer_sum_to_one(order):
    cfg = Config(n=64, d=8, Br=16, Bc=16, loop_order=order)
    Q, K, V = random_qkv(64, 8)
    _, _, steps = listing.record(cfg, Q, K, V, bug="no_rescale")
    S = Q @ K.T
    sums = []  # each row's weights e^(s - m) / l, summed, with the listing's final m and l
    for i in range(cfg.Tr):
        last = [s for s in steps if s["i"] == i][-1]
        rows = S[i * 16:(i + 1) * 16]
        m = rows.max(axis=1)
        sums += list(np.exp(rows - m[:, None]).sum(axis=1) / last["l"])
    assert min(sums) < 0.99, f"weights sum to {min(sums):.4f} at least"
    broken = listing.run(cfg, Q, K, V, bug="no_rescale")[0]
    assert np.abs(broken - standard_attention(Q, K, V, cfg)).max() > 1e-3


@pytest.mark.parametrize("order", ORDERS)
def test_no_max_overflows_on_large_scores(order):
    cfg = Config(n=32, d=8, Br=8, Bc=8, loop_order=order)
    Q, K, V = random_qkv(32, 8)
    Q = Q * 400  # scores in the hundreds: exp overflows float64 past e^709.8
    assert np.isfinite(listing.run(cfg, Q, K, V)[0]).all()
    assert not np.isfinite(listing.run(cfg, Q, K, V, bug="no_max")[0]).all()


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("bug", ["tiles_too_big", "tiles_too_small", "keep_full_S"])
def test_the_other_bugs_count_what_the_broken_config_costs(bug, order):
    correct = Config(n=1024, d=64, loop_order=order) if bug != "keep_full_S" else Config(n=256, d=16, loop_order=order)
    broken = BUGS[bug].apply(correct)
    Q, K, V = random_qkv(correct.n, correct.d)
    O, hbm = listing.run(correct, Q, K, V, bug=bug)  # the edit, not the config, changes the tiles
    want = costs.flash_cost(broken)
    assert (hbm.moved, hbm.spilled, hbm.working_set, hbm.peak) == (want.moved, want.spilled,
                                                                    want.working_set, want.peak)
    assert np.abs(O - standard_attention(Q, K, V, correct)).max() < 1e-12, "the answer stays right"


def test_tile_bugs_show_their_symptoms_at_the_seeds_settings():
    cfg = Config()  # n = 1024, d = 64, 64 x 64 tiles, 96 KB
    Q, K, V = random_qkv(cfg.n, cfg.d)
    _, big = listing.run(cfg, Q, K, V, bug="tiles_too_big")
    _, small = listing.run(cfg, Q, K, V, bug="tiles_too_small")
    assert big.working_set * 4 / KB == 1412.0 and big.working_set * 4 > cfg.sram_bytes
    assert small.moved * 4 / 2**20 == 32.5 > costs.standard_cost(cfg).hbm_bytes / 2**20


def test_the_standalone_script_needs_only_numpy_and_prints_the_seeds_figures(tmp_path):
    path = tmp_path / "flash_listing.py"
    path.write_text(listing.script())
    check = ("import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__'); "
             "extra = {m.split('.')[0] for m in sys.modules} & {'flashviz', 'pandas', 'scipy', 'torch'}; "
             "assert not extra, extra")
    out = subprocess.run([sys.executable, "-c", check, str(path)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    demo3 = demos.demo3().tables["tiling"]
    for _, row in demo3.iterrows():
        printed = next(line.split() for line in lines if line.split()[:1] == [str(int(row["n"]))])
        diff, std_peak, flash_peak, std_mb, flash_mb = map(float, printed[1:])
        assert diff < 1e-15, f"n = {row['n']}: max |diff| {diff}"
        assert (std_peak, flash_peak, std_mb, flash_mb) == (
            round(row["std peak KB"], 1), round(row["flash peak KB"], 1),
            round(row["std HBM MB"], 2), round(row["flash HBM MB"], 2))
    assert "standard attention traffic: 17.00 MB" in out.stdout
    demo4 = demos.demo4().tables["block size"]
    for _, row in demo4.iterrows():
        printed = next(line.split() for line in lines if line.split()[:1] == [str(int(row["block"]))]
                       and len(line.split()) >= 4 and line.split()[3] in ("yes", "NO"))
        assert (float(printed[1]), float(printed[2])) == (round(row["HBM MB"], 2),
                                                          round(row["tile working set KB"], 1))
        assert (printed[3] == "yes") == bool(row["fits SRAM"])
    # the seed's own figures, digit for digit
    assert any(line.split()[:3] == ["16", "32.50", "13.1"] for line in lines)
    assert any(line.split()[:3] == ["512", "1.50", "1412.0"] for line in lines)


def test_the_script_is_the_listing_plus_its_counter():
    text = listing.script("fa2")
    assert listing.LISTINGS["fa2"] in text and listing.HBM_SOURCE in text
    assert "import numpy as np" in text and "flashviz" not in text
