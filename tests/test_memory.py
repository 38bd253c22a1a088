"""The memory model: each rule against figures worked by hand or printed by the seed, and the
structure that keeps every counting rule in memory.py."""
import ast
import inspect
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashviz.model import memory as mem
from flashviz.model.config import KB, MB, SEED, Config

ROOT = Path(__file__).resolve().parents[1]
N, D = SEED.n, SEED.d                     # the seed's n = 1024, d = 64
M = SEED.sram_elements                    # 96 KB of float32: 24576 elements
EB = SEED.element_bytes

# The seed's demo 4 table (n = 1024, d = 64, 96 KB, float32), as it prints it:
# block -> (HBM MB, tile working set KB, fits SRAM?)
SEED_DEMO4 = {16: ("32.50", "13.1", True), 32: ("16.50", "28.2", True), 64: ("8.50", "64.5", True),
              128: ("4.50", "161.0", False), 256: ("2.50", "450.0", False), 512: ("1.50", "1412.0", False),
              1024: ("1.00", "4872.0", False)}
# Its demo 3 table (64 x 64 tiles): n -> (std HBM MB, flash HBM MB)
SEED_DEMO3 = {128: ("0.38", "0.19"), 256: ("1.25", "0.62"), 512: ("4.50", "2.25"), 1024: ("17.00", "8.50"),
              2048: ("66.00", "33.00")}


def fa2_moved(n: int, d: int, B: int) -> int:
    """FA2 order with B x B tiles, B dividing n, no mask: Tr query blocks each load Qi and write
    Oi, and each of the Tr * Tc tiles loads its Kj and Vj."""
    T = n // B
    return T * (mem.load_Qi(B, d) + mem.write_Oi(B, d)) + T * T * mem.load_Kj_Vj(B, d)


def standard_moved(n: int, d: int) -> int:
    return (mem.read_Q_K(n, d) + mem.write_S(n) + mem.read_S(n) + mem.write_P(n)
            + mem.read_P_V(n, d) + mem.write_O(n, d))


@pytest.mark.parametrize("block", sorted(SEED_DEMO4))
def test_working_set_gives_the_seeds_tile_column(block):
    ws = mem.working_set(block, block, D)
    assert f"{ws * EB / KB:.1f}" == SEED_DEMO4[block][1], f"{ws} elements"


@pytest.mark.parametrize("block", sorted(SEED_DEMO4))
def test_fits_gives_the_seeds_fits_column(block):
    ws = mem.working_set(block, block, D)
    assert mem.fits(ws, M) is SEED_DEMO4[block][2], f"{ws} elements against {M}"


@pytest.mark.parametrize("block", sorted(SEED_DEMO4))
def test_fa2_moves_give_the_seeds_traffic_column(block):
    assert f"{fa2_moved(N, D, block) * EB / MB:.2f}" == SEED_DEMO4[block][0]


@pytest.mark.parametrize("n", sorted(SEED_DEMO3))
def test_standard_and_fa2_moves_give_the_seeds_tiling_table(n):
    std, flash = SEED_DEMO3[n]
    assert f"{standard_moved(n, D) * EB / MB:.2f}" == std
    assert f"{fa2_moved(n, D, 64) * EB / MB:.2f}" == flash


def test_standard_forward_is_4nd_plus_4n2():
    n, d = 300, 7
    assert standard_moved(n, d) == 4 * n * d + 4 * n * n == 368_400


def test_standard_backward_is_7n2_plus_8nd():
    n, d = 300, 7
    moved = (mem.read_P_dO(n, d) + mem.write_dV(n, d) + mem.read_dO_V(n, d) + mem.write_dP(n)
             + mem.read_P_dP(n) + mem.write_dS(n) + mem.read_dS_K(n, d) + mem.write_dQ(n, d)
             + mem.read_dS_Q(n, d) + mem.write_dK(n, d))
    assert moved == 7 * n * n + 8 * n * d == 646_800


def test_fa1_moves_per_tile_are_Qi_Oi_mi_li_in_and_Oi_mi_li_out():
    r, d = 64, 64  # read 2rd + 2r, write rd + 2r: 3rd + 4r = 12544
    assert mem.read_Qi_Oi_mi_li(r, d) + mem.write_Oi_mi_li(r, d) == 12_544
    assert mem.init_O_m_l(1024, 64) == 1024 * 64 + 2 * 1024


def test_flash_backward_moves():
    r, c, d, n = 64, 32, 16, 1000
    per_tile = mem.read_Qi_dOi_mi_li_Di(r, d) + mem.read_dQi(r, d) + mem.write_dQi(r, d)
    assert per_tile == (4 * d + 3) * r == 4288
    assert mem.load_Kj_Vj(c, d) + mem.write_dKj_dVj(c, d) == 4 * c * d == 2048
    assert mem.read_dO_O(n, d) + mem.write_D(n) + mem.init_dQ(n, d) == 3 * n * d + n == 49_000


def test_keep_full_S_writes_every_score_of_a_tile():
    assert mem.write_Sij(64, 48) == 3072


def test_backward_working_set_by_hand():
    # Kj, Vj, dKj, dVj: 4 * 64 * 64; Qi, dOi, dQi: 3 * 64 * 64; P and dS: 2 * 64 * 64; m, l, D: 3 * 64
    assert mem.backward_working_set(64, 64, 64) == 16384 + 12288 + 8192 + 192 == 37_056


def test_kernel_smem_is_Qi_plus_a_Kj_Vj_per_stage():
    assert mem.kernel_smem(128, 128, 64) == 3 * 128 * 64
    assert mem.kernel_smem(64, 64, 64, stages=2) == 64 * 64 + 4 * 64 * 64 == 20_480


def test_spill_of_the_seeds_too_big_tiles():
    ws = mem.working_set(512, 512, D)  # 361472 elements: 1412 KB against 96 KB
    assert mem.spill_elements(ws, M) == mem.SPILL_TRIPS * (361_472 - 24_576) == 1_347_584


def test_spill_starts_one_element_over_the_budget():
    assert mem.spill_elements(M, M) == 0 and mem.spill_elements(M - 1, M) == 0
    assert mem.spill_elements(M + 1, M) == mem.SPILL_TRIPS


def test_fits_at_the_boundary():
    assert mem.fits(M, M) and not mem.fits(M + 1, M) and mem.fits(0, M)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40_000), st.sampled_from([2, 4, 8]))
def test_fits_says_the_same_in_bytes_and_in_elements(ws, sram_bytes, eb):
    assert mem.fits(ws * eb, sram_bytes) == mem.fits(ws, sram_bytes // eb)


def test_clamp_tiles_cuts_each_tile_to_what_it_tiles():
    assert mem.clamp_tiles(32, 64, 16) == (32, 16)
    assert mem.clamp_tiles(100, 64, 128) == (64, 100)
    assert mem.clamp_tiles(4, 64, 64, keys=1000) == (4, 64)    # decode: 4 rows, a long cache
    assert mem.clamp_tiles(128, 64, 64, keys=16) == (64, 16)   # a 16-key split-KV chunk


def test_configs_cut_their_tiles_by_the_one_rule():
    assert Config.clamped(32, 64, 16, d=8) == Config(n=32, d=8, Br=32, Bc=16)
    assert SEED.at_n(16) == SEED.with_(n=16, Br=16, Bc=16)
    assert SEED.at_n(4096) == SEED.with_(n=4096)
    assert SEED.at_n(100, 512, 8) == SEED.with_(n=100, Br=100, Bc=8)
    assert SEED.with_(n=256).with_tiles(512, 512) == SEED.with_(n=256, Br=256, Bc=256)


def test_paper_block_rule_uses_elements():
    # M = 96 KB of float32 = 24576 elements; ceil(24576 / 256) = 96; Br capped at d.
    assert mem.paper_block_sizes(96 * 1024 // 4, 64) == (64, 96)
    assert mem.paper_block_sizes(1000, 128) == (2, 2)
    with pytest.raises(ValueError):
        mem.paper_block_sizes(0, 64)


def test_a_matmul_is_two_flops_per_term():
    meter = mem.Counters()
    meter.matmul(2, 3, 4)
    assert meter.flops == 48


# --- Structure: the rules live in memory.py and nowhere else -------------------------------

RULES = {name for name, f in inspect.getmembers(mem, inspect.isfunction) if f.__module__ == mem.__name__}
SCANNED = sorted(p for folder in ("flashviz", "explorer", "lessons", "bench") for p in (ROOT / folder).rglob("*.py"))
SCANNED = [p for p in SCANNED + [ROOT / "app.py"] if p != ROOT / "flashviz" / "model" / "memory.py"]
# Copies still standing in files that another part of issue 10 is restructuring now (left to it
# on purpose); test_pending_copies_are_still_there fails once one is gone, so the entry goes too.
PENDING: set[tuple[str, str]] = set()


def _last_name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _calls(node, name: str) -> bool:
    return any(isinstance(c, ast.Call) and _last_name(c.func) == name for c in ast.walk(node))


def _min_of_n(node) -> bool:
    """min(x, n) or min(n, x): something cut to the sequence length."""
    return (isinstance(node, ast.Call) and _last_name(node.func) == "min" and len(node.args) == 2
            and "n" in [_last_name(a) for a in node.args])


def _tile_clamps(tree) -> set[int]:
    """Lines that cut a tile to n by hand: min(Br, n) and the like, or any min(x, n) that
    becomes a Br or Bc (a keyword Br=, Bc= or a name with Br or Bc in it)."""
    lines = set()
    for node in ast.walk(tree):
        if _min_of_n(node) and {_last_name(a) for a in node.args} & {"Br", "Bc", "block", "b"}:
            lines.add(node.lineno)
        becomes_a_tile = (isinstance(node, ast.keyword) and node.arg in ("Br", "Bc")) or (
            isinstance(node, ast.Assign) and any(re.search(r"B[rc]", ast.unparse(t)) for t in node.targets))
        if becomes_a_tile:
            lines |= {sub.lineno for sub in ast.walk(node.value) if _min_of_n(sub)}
    return lines


def _copies(tree) -> set[tuple[str, int]]:
    """(kind, line) of every place that restates a counting rule instead of calling it."""
    found = {("tile clamp", line) for line in _tile_clamps(tree)}
    the_peak_rule = {line for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                     and node.name == "peak_flops" for line in range(node.lineno, (node.end_lineno or 0) + 1)}
    for node in ast.walk(tree):
        text = ast.unparse(node) if isinstance(node, ast.expr) else ""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            rule = node.name in RULES or re.fullmatch(r"\w*(working_set|spill\w*)", node.name)
            if rule and not _calls(node, node.name):      # a same-named method may delegate
                found.add((f"rule {node.name} defined", node.lineno))
        elif isinstance(node, ast.Assign) and any(_last_name(t) == "SPILL_TRIPS" for t in node.targets):
            found.add(("spill rule", node.lineno))
        elif isinstance(node, ast.Compare) and len(node.comparators) == 1 and isinstance(
                node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            sides = [ast.unparse(node.left), ast.unparse(node.comparators[0])]
            if any(re.search(r"working_set|\bws\b", s) for s in sides) and any(
                    re.search(r"sram|budget", s) for s in sides):
                found.add(("fits test", node.lineno))
        elif (isinstance(node, ast.IfExp) and "fp32_flops" in text and "fp16_tensor_flops" in text
              and node.lineno not in the_peak_rule):
            found.add(("peak rate", node.lineno))
        elif isinstance(node, ast.BinOp) and re.search(
                r"\b\w+ \* d \+ 2 \* \w+ \* d \+ \w+ \* \w+|\b4 \* \w+ \* d \+ 3 \* \w+ \* d", text):
            found.add(("working-set formula", node.lineno))
    return found


def _scan() -> dict[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = {}
    for path in SCANNED:
        for kind, line in _copies(ast.parse(path.read_text(), str(path))):
            out.setdefault((path.relative_to(ROOT).as_posix(), kind), []).append(line)
    return out


def test_the_scanner_finds_each_kind_of_copy():
    src = '''
def working_set(r, c, d):
    return r * d + 2 * c * d + r * c + 2 * r
SPILL_TRIPS = 4
ok = cost.working_set_bytes <= cfg.sram_bytes
cfg = Config(n=n, Br=min(cfg.Br, n), Bc=min(64, n))
other_Bc = cfg.Bc // 2 if cfg.Bc > 1 else min(2, cfg.n)
peak = hw.fp32_flops if wide else hw.fp16_tensor_flops
shown = min(cfg.n, 256)
'''
    found = _copies(ast.parse(src))
    assert {kind for kind, _ in found} == {"rule working_set defined", "working-set formula", "spill rule",
                                           "fits test", "tile clamp", "peak rate"}
    assert sorted(line for kind, line in found if kind == "tile clamp") == [6, 7], "min(n, 256) is no tile"


def test_no_module_but_memory_restates_a_counting_rule():
    copies = {where: lines for where, lines in _scan().items() if where not in PENDING}
    assert not copies, f"counting rules restated outside flashviz/model/memory.py (file, kind): lines {copies}"


def test_pending_copies_are_still_there():
    gone = PENDING - set(_scan())
    assert not gone, f"{gone} no longer restate a rule: take them off PENDING"


def test_the_closed_forms_do_not_import_the_simulators():
    tree = ast.parse((ROOT / "flashviz" / "model" / "costs.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                 for alias in node.names}
    assert not imported & {"attention", "backward", "flashviz.run.attention", "flashviz.run.backward"}, imported


def test_the_simulators_and_closed_forms_call_the_same_move_rules():
    """Every move rule the forward and backward simulators call, costs.py sums too."""
    def called(module: str) -> set[str]:
        tree = ast.parse((ROOT / "flashviz" / module).read_text())
        return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                and _last_name(node.value) == "mem"}
    simulated = called("run/attention.py") | called("run/backward.py")
    assert simulated <= called("model/costs.py"), f"only simulated: {simulated - called('model/costs.py')}"
    assert simulated >= RULES - {"clamp_tiles", "paper_block_sizes", "fits", "kernel_smem"}, (
        f"rules no simulator calls: {RULES - simulated}")
