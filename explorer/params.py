"""Deep-link parameters: read a raw URL value, clamp or refuse it, say why.

Pure Python (no Streamlit), so every hostile string can be tested directly.
A widget's key is its URL parameter name.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from flashviz.model.config import CUSTOM, HARDWARE, Knob, knobs

TRUE = {"true", "1", "yes", "on"}
FALSE = {"false", "0", "no", "off"}


def shown(raw: str, limit: int = 24) -> str:
    """A user-typed value made safe to quote in a markdown code span."""
    text = "".join(ch for ch in str(raw) if ch.isprintable()).replace("`", "'")
    return text[:limit] + ("…" if len(text) > limit else "")


@dataclass(frozen=True)
class Param:
    key: str
    label: str
    default: object
    options: tuple = ()         # for choices (numbers or strings)
    lo: float | None = None     # for sliders
    hi: float | None = None
    step: float | None = None
    kind: str = "options"       # options | int | float | bool
    widget: str = ""            # "number": a box to type in, for int and float (default: a slider)

    def offered(self) -> tuple[tuple, str]:
        """The slider's values in the order its range input counts them, and what the input's value is: "index" (a
        select slider: the position among its options) or "value" (the number itself). Worked out once a control."""
        return _offered(self)

    def input_value(self, value) -> float:
        """What the slider's range input holds at `value`: the number, or its position among the options."""
        values, mode = self.offered()
        return values.index(value) if mode == "index" else value

    def parse(self, raw: str | list) -> tuple[object, str | None]:
        """(value, note). value is what the widget should show; note says
        what was changed and why, or is None when the link was fine. A key the
        link repeats with different values: the last is used, as st.query_params
        gives it, and the note says so."""
        repeated = None
        if isinstance(raw, list):
            if len({str(r) for r in raw}) > 1:
                repeated = (f"`{self.key}` is in the link {len(raw)} times "
                            f"({', '.join(f'`{shown(r)}`' for r in raw[:3])}{', …' if len(raw) > 3 else ''}); "
                            "the last is used.")
            raw = raw[-1] if raw else ""
        value, note = self._parse_one(str(raw))
        return value, " ".join(n for n in (repeated, note) if n) or None

    def _parse_one(self, raw: str) -> tuple[object, str | None]:
        quoted = f"`{self.key}={shown(raw)}`"
        if self.kind == "bool":
            low = raw.strip().lower()
            if low in TRUE or low in FALSE:
                return low in TRUE, None
            return self.default, f"{quoted} is not true or false; using {self.default}."
        if self.kind == "options" and not all(isinstance(o, (int, float)) for o in self.options):
            if raw in self.options:
                return raw, None
            return self.default, f"{quoted} is not one of {', '.join(map(str, self.options))}; using {self.default}."
        try:
            number = float(raw.strip())
        except ValueError:
            return self.default, f"{quoted} is not a number; using {self.default}."
        if not math.isfinite(number):
            return self.default, f"{quoted} is not a finite number; using {self.default}."
        if self.kind == "options":
            nearest = min(self.options, key=lambda o: (abs(o - number), o))
            if nearest == number:
                return nearest, None
            return nearest, f"{quoted} is not offered; using the nearest, {nearest}."
        lo, hi = self.lo, self.hi
        if lo is None or hi is None:
            raise ValueError(f"{self.key}: a number control needs lo and hi")
        value = min(max(number, lo), hi)
        if self.step:
            value = lo + round((value - lo) / self.step) * self.step
        value = int(round(value)) if self.kind == "int" else round(value, 6)
        if value == number:
            return value, None
        if number < lo or number > hi:
            return value, f"{quoted} is outside {lo:g} to {hi:g}; using {value}."
        return value, f"{quoted} is between steps; using {value}."


# The reader's own GPU (hw=custom), in the units a vendor's sheet prints. Shared by every lesson
# (ui.shared_link carries them) but drawn only while "custom" is chosen; they start at the default
# GPU's figures (the A100 40GB's), so only what the reader changed goes in the URL.
CUSTOM_GPU = (
    Param("gpu_bw", "HBM bandwidth (GB/s)", 1555, lo=50, hi=50000, step=1, kind="int", widget="number"),
    Param("gpu_tc", "16-bit matmul (TFLOP/s)", 312.0, lo=1.0, hi=50000.0, step=0.1, kind="float",
          widget="number"),
    Param("gpu_fp32", "fp32 (TFLOP/s)", 19.5, lo=0.1, hi=5000.0, step=0.1, kind="float", widget="number"),
    Param("gpu_smem", "shared memory per block (KB)", 163, lo=16, hi=4096, step=1, kind="int", widget="number"),
    Param("gpu_l2", "L2 (MB)", 40, lo=0, hi=4096, step=1, kind="int", widget="number"),
    Param("gpu_sms", "SMs", 108, lo=1, hi=4096, step=1, kind="int", widget="number"),
    Param("gpu_mem", "HBM capacity (GB)", 40, lo=1, hi=65536, step=1, kind="int", widget="number"),
)

# The label of each engine knob (flashviz.model.config.Config's fields declared with `knob`): the knob's
# URL key, default, and offered values or range come from the engine, so adding a knob is its
# field in Config plus one line here.
LABELS = {
    "n": "sequence length n", "d": "head dim d", "Br": "tile Br", "Bc": "tile Bc",
    "sram_bytes": "SRAM budget M (KB)", "dtype": "data type", "causal": "causal mask", "loop_order": "loop order",
}


def from_knob(name: str, knob: Knob, default) -> Param:
    """The control of one Config field, in the knob's units."""
    if isinstance(default, bool):
        return Param(knob.key, LABELS[name], default, kind="bool")
    if knob.options:
        return Param(knob.key, LABELS[name], default, knob.options)
    return Param(knob.key, LABELS[name], default // knob.unit, lo=knob.lo, hi=knob.hi, step=knob.step,
                 kind="int" if isinstance(default, int) else "float")


ENGINE = {name: from_knob(name, knob, default) for name, (knob, default) in knobs().items()}
UNITS = {ENGINE[name].key: knob.unit for name, (knob, _) in knobs().items()}  # URL key -> field units per unit
FIELDS = {ENGINE[name].key: name for name in ENGINE}  # URL key -> Config field

# Every control in the sidebar: the engine's knobs, then the app's own (the GPU, presentation mode).
SHARED = {p.key: p for p in (
    *ENGINE.values(),
    Param("hw", "GPU", "A100 40GB", tuple(HARDWARE) + (CUSTOM,)),
    Param("present", "presentation mode", False, kind="bool"),
)}


@functools.cache
def _offered(p: Param) -> tuple[tuple, str]:
    if p.options:
        return tuple(p.options), "index"
    lo, hi, step = p.lo, p.hi, p.step
    assert lo is not None and hi is not None and step is not None, f"{p.key} has no options and no range"
    values = (lo + k * step for k in range(int(round((hi - lo) / step)) + 1))
    return tuple(int(round(v)) if p.kind == "int" else round(v, 6) for v in values), "value"
