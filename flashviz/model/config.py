"""One frozen config for every knob, plus the named presets.

Frozen means hashable, so the app can use a Config as a cache key.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from math import ceil, isfinite

from . import masks
from .memory import clamp_tiles

# Element size of each storage type, in bytes. The traffic model multiplies
# element counts by these; the arithmetic runs in `Config.compute`.
DTYPE_BYTES = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}
COMPUTE_DTYPES = ("float64", "float32")
LOOP_ORDERS = ("fa2", "fa1")
MAX_N = 2**22  # the closed forms are exact and instant up to here
KB = 1024  # the seed's KB and MB are binary: 1 KB = 1024 B, 1 MB = 2**20 B
MB = 2**20


# What the app offers for each knob. The engine accepts more (any n up to MAX_N, any tile up to n);
# these are the values a reader picks from, and a deep link's value is snapped to them.
SEQUENCE_LENGTHS = (16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
                    6144, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
HEAD_DIMS = (16, 32, 64, 128, 256)
TILE_SIZES = (1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256, 512, 1024)
STORAGE_DTYPES = ("float32", "float16", "bfloat16", "float64")


@dataclass(frozen=True)
class Knob:
    """How a Config field appears as a control: its URL key, and either the values offered
    (`options`) or a range (`lo`..`hi` by `step`), in units of `unit` field units (the SRAM
    budget is set in KB and stored in bytes)."""

    key: str
    options: tuple = ()
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    unit: int = 1


def knob(default, key: str = "", **offer):
    """A Config field with its control: the one place a knob is declared. `key` defaults to the
    field's own name; `offer` is Knob's options or lo/hi/step (and unit)."""
    return field(default=default, metadata={"knob": (key, offer)})


@dataclass(frozen=True)
class Config:
    n: int = knob(1024, options=SEQUENCE_LENGTHS)             # N, sequence length (rows of Q, K, V)
    d: int = knob(64, options=HEAD_DIMS)                      # head dimension
    Br: int = knob(64, options=TILE_SIZES)                    # query rows per tile
    Bc: int = knob(64, options=TILE_SIZES)                    # key/value rows per tile
    # M: what one kernel may use of shared memory on an A100
    sram_bytes: int = knob(96 * KB, key="sram", lo=8, hi=512, step=1, unit=KB)
    dtype: str = knob("float32", options=STORAGE_DTYPES)      # storage type: sets the bytes per element moved
    compute: str = "float64"  # arithmetic precision of the NumPy run
    causal: bool = knob(False)  # mask keys after the query; skip fully masked tiles
    # Masks beyond causal (masks.py), as flash-attn takes them: window_size=(left, right), None for its
    # -1 (unbounded); causal wins over a right side, as in flash-attn's interface.
    window_left: int | None = None
    window_right: int | None = None
    docs: tuple[int, ...] = ()         # packed documents' lengths (flash-attn's cu_seqlens), adding to n
    blocks: frozenset | None = None    # a block mask: the (i, j) tiles that may be computed
    # gpt-oss's and flash-attn-4's learnable sink: one logit per head in the softmax's denominator only
    sink: float | None = None
    # fa2: outer over Q blocks; fa1: outer over K/V blocks
    loop_order: str = knob("fa2", key="order", options=LOOP_ORDERS)
    # The seed's "Break it" bugs. The defaults are the correct algorithm.
    rescale: bool = True       # False: drop the e^(m_old - m_new) correction
    subtract_max: bool = True  # False: exp(S) instead of exp(S - m); overflows
    keep_full_S: bool = False  # True: keep every score tile in an n x n buffer

    def __post_init__(self):
        for name in ("n", "d", "Br", "Bc", "sram_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if self.n > MAX_N:
            raise ValueError(f"n={self.n} is above the largest supported size {MAX_N} (2^22)")
        for name in ("Br", "Bc"):
            if getattr(self, name) > self.n:
                raise ValueError(
                    f"{name}={getattr(self, name)} is larger than n={self.n}: "
                    f"a tile cannot hold more rows than the sequence; use {name} <= {self.n}"
                )
        if self.dtype not in DTYPE_BYTES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPE_BYTES)}, got {self.dtype!r}")
        if self.compute not in COMPUTE_DTYPES:
            raise ValueError(f"compute must be one of {', '.join(COMPUTE_DTYPES)}, got {self.compute!r}")
        if self.loop_order not in LOOP_ORDERS:
            raise ValueError(f"loop_order must be 'fa2' or 'fa1', got {self.loop_order!r}")
        _ = self.mask  # checks the window and the documents
        if self.blocks is not None and any(not (0 <= i < self.Tr and 0 <= j < self.Tc) for i, j in self.blocks):
            raise ValueError(f"a block mask's tiles must lie in the {self.Tr} x {self.Tc} grid of Br x Bc tiles")
        if self.sink is not None and not (isinstance(self.sink, (int, float)) and isfinite(self.sink)):
            raise ValueError(f"a sink is a finite logit, got {self.sink!r}")

    @property
    def element_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def Tr(self) -> int:
        """Number of query blocks."""
        return ceil(self.n / self.Br)

    @property
    def Tc(self) -> int:
        """Number of key/value blocks."""
        return ceil(self.n / self.Bc)

    @property
    def mask(self) -> masks.Mask:
        """Which keys each query sees: causal, the window, the documents and the block mask as one."""
        return masks.window(self.n, self.window_left, self.window_right, self.causal, self.docs, self.blocks)

    @property
    def sram_elements(self) -> int:
        """The budget M in elements of `dtype`."""
        return self.sram_bytes // self.element_bytes

    def with_(self, **changes) -> "Config":
        """A copy with some knobs changed (validated again)."""
        return replace(self, **changes)

    @classmethod
    def clamped(cls, n: int, Br: int, Bc: int, **settings) -> "Config":
        """A config whose Br x Bc tiles are cut to n (memory.clamp_tiles)."""
        Br, Bc = clamp_tiles(n, Br, Bc)
        return cls(n=n, Br=Br, Bc=Bc, **settings)

    def at_n(self, n: int, Br: int | None = None, Bc: int | None = None) -> "Config":
        """A copy at sequence length n with Br x Bc tiles (this config's unless given), cut to n."""
        Br, Bc = clamp_tiles(n, self.Br if Br is None else Br, self.Bc if Bc is None else Bc)
        return self.with_(n=n, Br=Br, Bc=Bc)

    def with_tiles(self, Br: int, Bc: int) -> "Config":
        """A copy with Br x Bc tiles, cut to n."""
        return self.at_n(self.n, Br, Bc)

    def without_bugs(self) -> "Config":
        """The correct run of this config: every Break-it flag off (tile sizes are settings)."""
        return self.with_(rescale=True, subtract_max=True, keep_full_S=False)


def knobs() -> dict[str, tuple[Knob, object]]:
    """Config field name -> (its Knob, its default), for every field the app offers."""
    out = {}
    for f in fields(Config):
        if "knob" in f.metadata:
            key, offer = f.metadata["knob"]
            out[f.name] = (Knob(key or f.name, **offer), f.default)
    return out


@dataclass(frozen=True)
class Hardware:
    name: str
    hbm_bytes_per_s: float    # vendor HBM bandwidth
    fp32_flops: float         # non-tensor FP32 rate (CUDA cores)
    fp16_tensor_flops: float  # dense FP16/BF16 tensor-core rate
    smem_per_block_kb: int    # largest shared memory one thread block may use
    l2_mb: int
    hbm_gb: int = 0           # HBM capacity
    smem_per_sm_kb: int = 0   # shared memory per streaming multiprocessor
    sms: int = 0              # streaming multiprocessors

    def peak_flops(self, dtype: str) -> float:
        """The matmul rate for a storage type: 16-bit types run on tensor cores,
        32- and 64-bit ones are counted at the FP32 CUDA-core rate (as the seed does)."""
        return self.fp32_flops if dtype in WIDE_DTYPES else self.fp16_tensor_flops

    def balance(self, dtype: str) -> float:
        """Machine balance in bytes per flop: above it a kernel waits on memory."""
        return self.hbm_bytes_per_s / self.peak_flops(dtype)


WIDE_DTYPES = ("float32", "float64")
# What attention really runs in on these GPUs: 16-bit storage, tensor-core matmuls.
TENSOR_DTYPE = "bfloat16"


def tensor_dtype(dtype: str) -> str:
    """The storage type attention runs in on tensor cores: a 32- or 64-bit type becomes
    TENSOR_DTYPE, a 16-bit one stays."""
    return TENSOR_DTYPE if dtype in WIDE_DTYPES else dtype

# Every figure's source, field by field, is in sources.PRESET_SOURCES (tests/test_sources.py checks
# that each has one). Dense rates: where a sheet prints the 16-bit tensor rate with sparsity, it is
# halved. The papers' "192 KB SRAM per SM" is L1 and shared memory together; a single block may use
# at most smem_per_block_kb of it (1 KB of the SM's shared memory is kept per block).
HARDWARE = {
    "A100 40GB": Hardware("A100 40GB", 1.555e12, 19.5e12, 312e12, 163, 40, 40, 164, 108),
    "A100 80GB": Hardware("A100 80GB", 2.039e12, 19.5e12, 312e12, 163, 40, 80, 164, 108),
    "H100 SXM": Hardware("H100 SXM", 3.35e12, 67e12, 989e12, 227, 50, 80, 228, 132),
    # SMs and L2: what PyTorch reports on the H200 this project measures on (NVIDIA's page lists neither).
    "H200 SXM": Hardware("H200 SXM", 4.8e12, 67e12, 989e12, 227, 60, 141, 228, 132),
    # B200 as in the HGX B200 (180 GB, 1,000 W): 7.7 TB/s and 75 TFLOP/s FP32 in NVIDIA's Blackwell
    # datasheet, whose 8 TB/s and 80 TFLOP/s are the GB200 NVL72's GPU; 4.5 PFLOP/s FP16/BF16 with
    # sparsity, 2.25 dense. 148 SMs and 126.5 MB L2: the CUDA driver's report on one (pytorch/ao #4002).
    "B200": Hardware("B200", 7.7e12, 75e12, 2250e12, 227, 126, 180, 228, 148),
    # MI300X (AMD, CDNA 3): 304 compute units (our "SMs"), 64 KiB LDS (shared memory) per CU and
    # 32 MiB L2 (4 per XCD) in AMD's ROCm table, plus a 256 MiB Infinity Cache this model leaves out.
    "MI300X": Hardware("MI300X", 5.3e12, 163.4e12, 1307.4e12, 64, 32, 192, 64, 304),
}

CUSTOM = "custom"  # the reader's own GPU: figures typed in, not a preset


def custom_hardware(hbm_gb_per_s: float, tensor_tflops: float, fp32_tflops: float, smem_per_block_kb: int,
                    l2_mb: int, sms: int, hbm_gb: int) -> Hardware:
    """A GPU from the figures on its own sheet, in the units sheets print them."""
    figures = dict(hbm_gb_per_s=hbm_gb_per_s, tensor_tflops=tensor_tflops, fp32_tflops=fp32_tflops,
                   smem_per_block_kb=smem_per_block_kb, sms=sms, hbm_gb=hbm_gb)
    for name, value in figures.items():
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if l2_mb < 0:
        raise ValueError(f"l2_mb must not be negative, got {l2_mb!r}")
    # Shared memory per SM is not asked for: a block may use at most what its SM has.
    return Hardware("custom GPU", hbm_gb_per_s * 1e9, fp32_tflops * 1e12, tensor_tflops * 1e12,
                    smem_per_block_kb, l2_mb, hbm_gb, smem_per_block_kb, sms)

# The configs the seed's demos use.
SEED = Config(n=1024, d=64, Br=64, Bc=64, sram_bytes=96 * KB, dtype="float32")
