"""Where every outside figure and statement comes from, and what the model assumes instead.

A page cites a paper or a vendor's table through `cite`, and marks a modelling choice of its
own through an `Assumption` key: a source is written once, here, and tests/test_sources.py
checks that every key a page uses exists, that every preset GPU's every figure has a source,
and that every assumption says what a real kernel does instead.

Links only: nothing here is fetched. A page shows the link; a reader's click opens it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    short: str  # how a page names it inline: "FlashAttention-2"
    title: str  # the full title, for the reading list
    who: str    # authors and year, or the vendor
    url: str


SOURCES: dict[str, Source] = {
    "pytorch_sdpa_math": Source(
        "PyTorch's math path", "aten/src/ATen/native/transformers/attention.cpp: _scaled_dot_product_attention_math "
        "(\"Scale q, k before matmul for stability\") and _safe_softmax", "PyTorch 2.11",
        "https://github.com/pytorch/pytorch/blob/v2.11.0/aten/src/ATen/native/transformers/attention.cpp"),
    "fa1": Source("FlashAttention", "FlashAttention: fast and memory-efficient exact attention with IO-awareness",
                  "Dao, Fu, Ermon, Rudra and Ré, 2022", "https://arxiv.org/abs/2205.14135"),
    "fa2": Source("FlashAttention-2", "FlashAttention-2: faster attention with better parallelism and work "
                  "partitioning", "Dao, 2023", "https://arxiv.org/abs/2307.08691"),
    "fa3": Source("FlashAttention-3", "FlashAttention-3: fast and accurate attention with asynchrony and low "
                  "precision", "Shah, Bikshandi, Zhang, Thakkar, Ramani and Dao, 2024",
                  "https://arxiv.org/abs/2407.08608"),
    "online": Source("Online softmax", "Online normalizer calculation for softmax", "Milakov and Gimelshein, 2018",
                     "https://arxiv.org/abs/1805.02867"),
    "rabe": Source("Rabe and Staats", "Self-attention does not need O(n²) memory", "Rabe and Staats, 2021",
                   "https://arxiv.org/abs/2112.05682"),
    "flash_decoding": Source("Flash-Decoding", "Flash-Decoding for long-context inference",
                             "Dao, Haziza, Massa and Sizov, 2023",
                             "https://crfm.stanford.edu/2023/10/12/flashdecoding.html"),
    # The whole-GPU model's per-architecture figures (flashviz.gpu_arch).
    "cuda_guide": Source("CUDA programming guide", "CUDA C++ Programming Guide: technical specifications per "
                         "compute capability", "NVIDIA",
                         "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html"
                         "#features-and-technical-specifications"),
    "a100_wp": Source("A100 whitepaper", "NVIDIA A100 Tensor Core GPU Architecture", "NVIDIA, 2020",
                      "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/"
                      "nvidia-ampere-architecture-whitepaper.pdf"),
    "rocm_specs": Source("ROCm GPU specifications", "AMD GPU specifications (AMD Instinct GPUs table)",
                         "AMD, ROCm documentation", "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html"),
    "llvm_amdgpu": Source("LLVM's AMDGPU backend", "LLVM AMDGPU backend, AMDGPUBaseInfo.cpp (the occupancy rules "
                          "of gfx90a and gfx942)", "LLVM project",
                          "https://github.com/llvm/llvm-project/blob/main/llvm/lib/Target/AMDGPU/Utils/"
                          "AMDGPUBaseInfo.cpp"),
    "rocm_partitions": Source("AMD's MI300 partition modes", "Deep dive into the MI300 compute and memory "
                              "partition modes", "AMD, ROCm blogs",
                              "https://rocm.blogs.amd.com/software-tools-optimization/compute-memory-modes/"
                              "README.html"),
}

# The reading list, in the order a reader meets the ideas.
READING = ("fa1", "online", "rabe", "fa2", "fa3")


def cite(key: str, where: str = "") -> str:
    """A Markdown link naming the source and, if given, where in it: "[FlashAttention-2, §3.3](…)"."""
    s = SOURCES[key]
    return f"[{s.short}{', ' + where if where else ''}]({s.url})"


@dataclass(frozen=True)
class Assumption:
    title: str    # short, for the mark beside a number: "spill charged to HBM"
    model: str    # what this model does
    real: str     # what a real kernel or GPU does instead, with its source (cite) where there is one


ASSUMPTIONS: dict[str, Assumption] = {
    "spill": Assumption(
        "spill charged to HBM",
        "When a tile step's working set is over the SRAM budget, the elements over it make the four trips "
        "the score matrix makes in standard attention (write S, read S, write P, read P), every tile step. "
        "This is the seed's rule, kept so its tables come out exactly.",
        "Shared memory does not spill: a kernel whose shared-memory tiles do not fit does not launch "
        f"({cite('fa2', '§3.3')}: \"the kernel cannot run at all\"). Registers do spill, to local memory, "
        "which is cached in L1 and L2 before it reaches HBM. A real kernel picks tiles that fit."),
    "fp64": Assumption(
        "computed in float64",
        "The NumPy runs compute in float64: overflow past e^709.8, rounding near 1e-16.",
        "Kernels take 16-bit inputs (float16 or bfloat16), multiply on tensor cores with float32 accumulation "
        "and keep the softmax's m, l and O in float32 registers: exp overflows past e^88.7 there, and a "
        "float16 store holds at most 65,504, about e^11.1."),
    "bandwidth_share": Assumption(
        "bandwidth in proportion to busy SMs",
        "A kernel whose blocks keep k of a GPU's S SMs busy gets k/S of its HBM bandwidth.",
        "Bandwidth saturates well before every SM is busy: a fraction of the SMs, each with enough loads in "
        "flight, can keep HBM at its peak."),
    "split_merge": Assumption(
        "merge left out",
        "Split-KV's merge of the chunks' partials costs nothing: no launch, no time, no bytes.",
        "FlashAttention's split-KV path writes the partials to memory and runs a separate combine kernel "
        "that reads them back."),
    "roofline": Assumption(
        "roofline time",
        "A kernel's time is the larger of its bytes over the HBM bandwidth and its flops over the peak rate.",
        "That is a bound, not a prediction: launches, the tail of the last wave, latency and imperfect "
        "overlap of copies and arithmetic all add time."),
    "l2": Assumption(
        "all-or-nothing L2",
        "Lesson 11's whole-GPU model: the blocks of a wave move along K and V together, so one DRAM read of a "
        "tile serves them all through the cache they share (NVIDIA's L2, of which a wave gets one of its two "
        "partitions; AMD CDNA 3's 256 MB Infinity Cache). Between two waves of a head, if the bytes in flight "
        "outgrow that share, the next wave finds none of the head's K and V and reads all of it again; if "
        "they fit, it finds all of it.",
        "A real cache is neither: LRU with many ways keeps part of K and V past the crossover, and the "
        "blocks of a wave drift apart, so a tile can leave the cache before the last blocks read it. Lesson "
        "11's targets set the model against the H200's measured reads, config by config."),
    "softmax_added": Assumption(
        "softmax time added to the matmuls",
        "Lesson 11's time model adds the softmax's time (exponentials and other FP32 work) to the matmuls' "
        "time, as in FlashAttention-2-style kernels, where the warps that run a tile's matmuls also run its "
        "softmax.",
        f"FlashAttention-3 hides most of it on Hopper: two warpgroups take turns, one's softmax running while "
        f"the other's matmuls do (ping-pong scheduling, {cite('fa3', '§3.1')}), and within a warpgroup the "
        f"softmax of one tile overlaps the matmul of the next ({cite('fa3', '§3.2')}); the time is then "
        "closer to the larger of the two than to their sum."),
    "same_kernels": Assumption(
        "the H200's kernels on every GPU",
        "Lesson 11 places each kernel on every GPU with the tiles, threads and registers per thread that "
        "Nsight Compute read on the H200; on AMD CDNA 3 its 128 or 256 threads are two or four wavefronts of 64.",
        "Each GPU runs its own build: on an A100 or B200 the compiler may allocate other registers, and on "
        "the MI300X PyTorch's flash attention is a different kernel (ROCm's), with tiles, stages and register "
        "use of its own. The residency and the wave count are the model's, not measured there."),
}
