"""Lesson 11's controls and its chart: measured DRAM reads against n, with both models.

The figure builder takes engine results and returns a plotly Figure; it is called as a
function. The lesson's controls are Params here (their keys are URL parameters), so
explorer.predict can read them for the lesson's question before the lesson draws them.
"""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from flashviz.config import HARDWARE, Hardware
from flashviz.gpu_model import Kernel, crossover_n, sdpa_flash, triton, whole_gpu

from .params import Param

KERNELS = ("PyTorch flash", "Triton 128×64", "Triton 64×64", "Triton 128×128")
IMPL = {"PyTorch flash": "flash", "Triton 128×64": "triton_128x64", "Triton 64×64": "triton_64x64",
        "Triton 128×128": "triton_128x128"}
N_OPTIONS = tuple(2**k for k in range(10, 21))
PARAMS = {p.key: p for p in (
    Param("wg_n", "sequence length n", 131072, N_OPTIONS),
    Param("wg_d", "head dim d", 128, (64, 128)),
    Param("wg_bh", "batch × heads", 1, lo=1, hi=64, step=1, kind="int"),
    Param("wg_gpu", "GPU", "H200 SXM", tuple(HARDWARE)),
    Param("wg_kernel", "kernel", "PyTorch flash", KERNELS),
)}


def kernel_named(name: str, d: int) -> Kernel:
    if name == "PyTorch flash":
        return sdpa_flash(d)
    bm, bn = (int(x) for x in name.split(" ")[1].split("×"))
    return triton(bm, bn, d)


@st.cache_data(max_entries=64, show_spinner=False)
def model_curves(d: int, bh: int, kernel_name: str, gpu: str) -> pd.DataFrame:
    k, hw = kernel_named(kernel_name, d), HARDWARE[gpu]
    rows = []
    for e in range(10, 21):
        w = whole_gpu(2**e, d, bh, k, hw)
        rows.append({"n": 2**e, "three-level": w.reads, "two-level": w.two_level, "floor": w.compulsory})
    return pd.DataFrame(rows)


def reads_figure(curves: pd.DataFrame, measured: pd.DataFrame, cross: int | None, title: str) -> go.Figure:
    """Reads (MB, log) against n (log): the floor, the two-level and three-level models,
    the H200's measured points, and the n where a head's K + V outgrow the L2 share."""
    mb = 2**20
    fig = go.Figure()
    styles = {"floor": ("#009E73", "dot"), "two-level": ("#D55E00", "dash"), "three-level": ("#0072B2", "solid")}
    for col, (colour, dash) in styles.items():
        name = {"floor": "compulsory Q + K + V", "two-level": "two-level model (one block, no L2)",
                "three-level": "three-level model (waves, L2)"}[col]
        fig.add_scatter(x=curves["n"], y=curves[col] / mb, name=name, mode="lines",
                        line={"color": colour, "dash": dash, "width": 3})
    if len(measured):
        fig.add_scatter(x=measured["n"], y=measured["dram_read_bytes"] / mb, name="H200, Nsight Compute",
                        mode="markers", marker={"color": "#000", "size": 11, "symbol": "diamond"})
    if cross:
        fig.add_vline(x=cross, line={"color": "#CC79A7", "width": 2, "dash": "dot"})
        fig.add_annotation(x=cross, y=1, yref="paper", text="K + V in flight outgrow L2", showarrow=False,
                           xanchor="left", font={"size": 15, "color": "#8B3A6B"})
    fig.update_layout(title={"text": title, "font": {"size": 17}}, height=400,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10},
                      font={"size": 15}, legend={"orientation": "h", "y": -0.22},
                      xaxis={"type": "log", "title": "sequence length n", "dtick": 0.30103 * 2},
                      yaxis={"type": "log", "title": "DRAM reads (MB)"})
    return fig


def crossover(d: int, bh: int, kernel_name: str, hw: Hardware) -> int | None:
    return crossover_n(d, bh, kernel_named(kernel_name, d), hw)
