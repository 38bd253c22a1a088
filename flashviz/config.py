"""One frozen config for every knob, plus the named presets.

Frozen means hashable, so the app can use a Config as a cache key.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from math import ceil

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
    def sram_elements(self) -> int:
        """The budget M in elements of `dtype`."""
        return self.sram_bytes // self.element_bytes

    def with_(self, **changes) -> "Config":
        """A copy with some knobs changed (validated again)."""
        return replace(self, **changes)


def knobs() -> dict[str, tuple[Knob, object]]:
    """Config field name -> (its Knob, its default), for every field the app offers."""
    out = {}
    for f in fields(Config):
        if "knob" in f.metadata:
            key, offer = f.metadata["knob"]
            out[f.name] = (Knob(key or f.name, **offer), f.default)
    return out


def working_set(rows: int, cols: int, d: int) -> int:
    """Elements in SRAM for one tile step: Qi + Kj + Vj + Sij + m + l.

    The seed's rule. The output accumulator Oi is not counted: real kernels
    keep it in registers.
    """
    return rows * d + 2 * cols * d + rows * cols + 2 * rows


def paper_block_sizes(sram_elements: int, d: int) -> tuple[int, int]:
    """Algorithm 1 of the paper: Bc = ceil(M / 4d), Br = min(ceil(M / 4d), d).

    M is on-chip memory in ELEMENTS, not bytes. Returns (Br, Bc).
    """
    if sram_elements < 1 or d < 1:
        raise ValueError("M and d must be positive")
    bc = ceil(sram_elements / (4 * d))
    return min(bc, d), bc


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

# Vendor figures (shared/FACTS.md). H200 bandwidth and FP32 rate are from a
# secondary copy of NVIDIA's sheet; the H200's L2 is what PyTorch reports on the
# one this project measures on. The papers' "192 KB SRAM per SM" is L1 and shared
# memory together; a single block may use at most smem_per_block_kb of it.
HARDWARE = {
    "A100 40GB": Hardware("A100 40GB", 1.555e12, 19.5e12, 312e12, 163, 40, 40, 164, 108),
    "A100 80GB": Hardware("A100 80GB", 2.039e12, 19.5e12, 312e12, 163, 40, 80, 164, 108),
    "H100 SXM": Hardware("H100 SXM", 3.35e12, 67e12, 989e12, 227, 50, 80, 228, 132),
    "H200 SXM": Hardware("H200 SXM", 4.8e12, 67e12, 989e12, 227, 60, 141, 228, 132),
    # B200 (HGX, 1000 W). From secondary copies of NVIDIA's Blackwell datasheet (2°): 8 TB/s HBM3e,
    # 2.25 PFLOP/s dense FP16/BF16 tensor, 80 TFLOP/s FP32. 180 GB is the HGX part's memory (DGX B200:
    # 1,440 GB over 8 GPUs; MLPerf submissions name "B200-SXM-180GB"). 148 SMs, 126.5 MB L2 and
    # 228 KB shared memory per SM are what the CUDA driver reports on one (pytorch/ao PR 4002, 2026;
    # it also computes 7.7 TB/s from the bus width the driver reports now); 227 KB per block is the
    # CUDA limit for compute capability 10.0, as on Hopper.
    "B200": Hardware("B200", 8.0e12, 80e12, 2250e12, 227, 126, 180, 228, 148),
    # MI300X (AMD, CDNA 3). AMD's ROCm GPU specifications page: 192 GiB HBM3, 304 compute units
    # (our "SMs"), 64 KiB LDS (shared memory) per CU, 32 MiB L2 (4 per XCD) plus 256 MiB Infinity
    # Cache, which this model leaves out as it leaves out L2. From secondary copies of AMD's
    # datasheet (2°): 5.3 TB/s, 1307.4 TFLOP/s dense FP16/BF16 matrix, 163.4 TFLOP/s FP32 vector.
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
