"""Where every outside figure and statement comes from, and what the model assumes instead.

A page cites a paper or a vendor's table through `cite`, and marks a modelling choice of its
own through an `Assumption` key: a source is written once, here, and tests/test_sources.py
checks that every key a page uses exists, that every preset GPU's every figure has a source
(PRESET_SOURCES), and that every assumption says what a real kernel does instead.

Links only: nothing here is fetched. A page shows the link; a reader's click opens it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    short: str    # how a page names it inline: "FlashAttention-2"
    title: str    # the full title, for the reading list
    who: str      # authors and year, or the vendor
    url: str = ""  # empty: not on the web (this project's own measurements)


_FA_COMMIT = "0251105a2fb19d2957484b7f023cd8c115286ced"  # flash-attention's main on 2026-08-15, read for its masks

SOURCES: dict[str, Source] = {
    # The papers, and the code where a paper does not say.
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
    "flashdecoding": Source("Flash-Decoding", "Flash-Decoding for long-context inference",
                            "Dao, Haziza, Massa and Sizov, 2023 (Stanford CRFM and PyTorch blogs)",
                            "https://crfm.stanford.edu/2023/10/12/flashdecoding.html"),
    "mqa": Source("Multi-query attention", "Fast transformer decoding: one write-head is all you need",
                  "Shazeer, 2019", "https://arxiv.org/abs/1911.02150"),
    "gqa": Source("Grouped-query attention", "GQA: training generalized multi-query transformer models from "
                  "multi-head checkpoints", "Ainslie, Lee-Thorp, de Jong, Zemlyanskiy, Lebrón and Sanghai, 2023",
                  "https://arxiv.org/abs/2305.13245"),
    "paged": Source("PagedAttention", "Efficient memory management for large language model serving with "
                    "PagedAttention", "Kwon, Li, Zhuang, Sheng, Zheng, Yu, Gonzalez, Zhang and Stoica, 2023",
                    "https://arxiv.org/abs/2309.06180"),
    "fa4": Source("FlashAttention-4", "FlashAttention-4: algorithm and kernel pipelining co-design for asymmetric "
                  "hardware scaling", "Zadouri, Hoehnerbach, Shah, Liu, Thakkar and Dao, 2026",
                  "https://github.com/Dao-AILab/flash-attention/blob/main/assets/fa4_paper.pdf"),
    "fa4_blog": Source("the FlashAttention-4 blog", "FlashAttention-4: algorithm and kernel pipelining co-design "
                       "for asymmetric hardware scaling (blog)", "Together AI, 2026",
                       "https://www.together.ai/blog/flashattention-4"),
    # flash-attn-4's CuTe DSL source at commit 0251105 (2026-08-15), read for this project.
    "fa4_fwd": Source("flash-attn-4's flash_fwd_sm100.py", "flash_attn/cute/flash_fwd_sm100.py: the Blackwell "
                      "forward; rescale_threshold = 8.0 for 16-bit inputs (0 otherwise), asserted below log2 of the "
                      "type's largest value (_LOG2_DTYPE_MAX); the ex2_emu_freq tuning table; Note [Low Precision "
                      "Scaling]", "Dao-AILab, 2026",
                      "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/"
                      "flash_attn/cute/flash_fwd_sm100.py"),
    "fa4_softmax": Source("flash-attn-4's softmax.py", "flash_attn/cute/softmax.py: SoftmaxSm100.update_row_max "
                          "keeps the old max while (m_old - m_new) · scale · log2 e ≥ -rescale_threshold; "
                          "apply_exp2_convert picks, by ex2_emu_freq, which pairs of entries take the polynomial",
                          "Dao-AILab, 2026",
                          "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/"
                          "flash_attn/cute/softmax.py"),
    "fa4_utils": Source("flash-attn-4's utils.py", "flash_attn/cute/utils.py: ex2_emulation (clamp at -127, floor by "
                        "a round-down add of 2^23 + 2^22, a degree-3 polynomial on the fraction with Sollya fpminimax "
                        "coefficients POLY_EX2[3], the integer shifted into the exponent field)", "Dao-AILab, 2026",
                        "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/"
                        "flash_attn/cute/utils.py"),
    "fa4_sm90": Source("flash-attn-4's flash_fwd_sm90.py", "flash_attn/cute/flash_fwd_sm90.py: the Hopper forward, "
                       "Softmax.create without a rescale threshold, exp2 on the special-function unit only",
                       "Dao-AILab, 2026",
                       "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/"
                       "flash_attn/cute/flash_fwd_sm90.py"),
    "modal_fa4": Source("Modal's reading of FlashAttention-4", "We reverse-engineered Flash Attention 4",
                        "Modal, 2025", "https://modal.com/blog/reverse-engineer-flash-attention-4"),
    "fa_code": Source("flash-attention code", "Dao-AILab/flash-attention", "Dao and contributors",
                      "https://github.com/Dao-AILab/flash-attention"),
    # Masks and sinks: flash-attn's own code at one commit (2026-08-15), and the models that use them.
    "fa_window": Source("flash-attn's window", "flash_attn/cute/mask.py (window_size=(left, right): key j is "
                        "seen by query i iff i − left ≤ j ≤ i + right; causal is (−1, 0)) and block_info.py "
                        "(get_n_block_min_max: the key blocks a query block computes; the others are skipped)",
                        "Dao-AILab, flash-attention 0251105",
                        f"https://github.com/Dao-AILab/flash-attention/blob/{_FA_COMMIT}/flash_attn/cute/block_info.py"),
    "fa_sink": Source("flash-attn-4's learnable_sink", "flash_attn/cute/softmax.py, finalize: the row sum gains "
                      "exp(sink − m) once, after the last tile", "Dao-AILab, flash-attention 0251105",
                      f"https://github.com/Dao-AILab/flash-attention/blob/{_FA_COMMIT}/flash_attn/cute/softmax.py"),
    "gpt_oss": Source("gpt-oss", "gpt_oss/torch/model.py: sdpa (the sinks as one more softmax column, dropped "
                      "after the softmax; a 128-token sliding window on every other layer)", "OpenAI, 2025",
                      "https://github.com/openai/gpt-oss/blob/main/gpt_oss/torch/model.py"),
    "streamingllm": Source("StreamingLLM", "Efficient streaming language models with attention sinks",
                           "Xiao, Tian, Chen, Han and Lewis, 2023", "https://arxiv.org/abs/2309.17453"),
    # The vendors' sheets, one per preset, and the tables behind the per-SM figures.
    "a100": Source("NVIDIA A100 datasheet", "NVIDIA A100 Tensor Core GPU datasheet", "NVIDIA, 2021",
                   "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
                   "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"),
    "ampere": Source("NVIDIA Ampere in depth", "NVIDIA Ampere architecture in-depth", "NVIDIA, 2020",
                     "https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/"),
    "h100": Source("NVIDIA H100 specifications", "NVIDIA H100 Tensor Core GPU", "NVIDIA",
                   "https://www.nvidia.com/en-us/data-center/h100/"),
    "hopper": Source("NVIDIA Hopper in depth", "NVIDIA Hopper architecture in-depth", "NVIDIA, 2022",
                     "https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/"),
    "h200": Source("NVIDIA H200 specifications", "NVIDIA H200 Tensor Core GPU", "NVIDIA",
                   "https://www.nvidia.com/en-us/data-center/h200/"),
    "blackwell": Source("NVIDIA Blackwell datasheet", "NVIDIA Blackwell datasheet", "NVIDIA",
                        "https://resources.nvidia.com/en-us-blackwell-architecture/datasheet"),
    "b200_query": Source("a B200's device query", "Update B200 peak memory bandwidth (pytorch/ao pull request "
                         "4002): the CUDA driver's report on one B200", "pytorch/ao, 2026",
                         "https://github.com/pytorch/ao/pull/4002"),
    "mi300x": Source("AMD MI300X data sheet", "AMD Instinct MI300X accelerator data sheet", "AMD",
                     "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
                     "amd-instinct-mi300x-data-sheet.pdf"),
    "rocm": Source("ROCm GPU specifications", "AMD GPU specifications (ROCm documentation)", "AMD",
                   "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html"),
    "cuda": Source("CUDA programming guide", "CUDA C++ programming guide: compute capabilities", "NVIDIA",
                   "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html"),
    "h200_measured": Source("measured on this project's H200",
                            "This project's H200: PyTorch's device properties, Nsight Compute and timings "
                            "(flashviz/data/h200, 2026-11-29 to 2026-12-01)", "this project"),
    "a100_wp": Source("A100 whitepaper", "NVIDIA A100 Tensor Core GPU Architecture", "NVIDIA, 2020",
                      "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/"
                      "nvidia-ampere-architecture-whitepaper.pdf"),
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
READING = ("fa1", "online", "rabe", "fa2", "fa3", "fa4", "mqa", "gqa", "paged", "flashdecoding")


def cite(key: str, where: str = "") -> str:
    """A Markdown link naming the source and, if given, where in it: "[FlashAttention-2, §3.3](…)".
    A source with no address (this project's measurements) is named in plain text."""
    s = SOURCES[key]
    text = f"{s.short}{', ' + where if where else ''}"
    return f"[{text}]({s.url})" if s.url else text


# Each preset GPU's figures (config.Hardware's fields but its name): field -> (source key, where in it).
_SHEET = ("hbm_bytes_per_s", "fp32_flops", "fp16_tensor_flops", "hbm_gb")  # what a vendor's sheet lists
_SMEM = ("smem_per_block_kb", "smem_per_sm_kb")
_DENSE = "FP16/BF16 tensor is the sheet's sparse figure halved"


def _from(key: str, where: str, fields: Iterable[str]) -> dict[str, tuple[str, str]]:
    return {f: (key, where) for f in fields}


PRESET_SOURCES: dict[str, dict[str, tuple[str, str]]] = {
    "A100 40GB": {**_from("ampere", "the A100 specification tables (A100 SXM4 40 GB)",
                          (*_SHEET, "l2_mb", "sms")),
                  **_from("cuda", "technical specifications, compute capability 8.0", _SMEM)},
    "A100 80GB": {**_from("a100", f"A100 80GB SXM column; {_DENSE}", _SHEET),
                  **_from("ampere", "the A100 specification tables (108 SMs, 40 MB L2)", ("l2_mb", "sms")),
                  **_from("cuda", "technical specifications, compute capability 8.0", _SMEM)},
    "H100 SXM": {**_from("h100", f"H100 SXM column; {_DENSE}", _SHEET),
                 **_from("hopper", "the comparison of A100 and H100 (H100 SXM5: 132 SMs, 50 MB L2)", ("l2_mb", "sms")),
                 **_from("cuda", "technical specifications, compute capability 9.0", _SMEM)},
    "H200 SXM": {**_from("h200", f"H200 SXM column; {_DENSE}", _SHEET),
                 **_from("h200_measured", "torch.cuda.get_device_properties, 2026-11-30: 132 SMs, 60 MiB L2",
                         ("l2_mb", "sms")),
                 **_from("cuda", "technical specifications, compute capability 9.0", _SMEM)},
    "B200": {**_from("blackwell", f"HGX B200 column (180 GB); {_DENSE}", _SHEET),
             **_from("b200_query", "the driver's report: 148 SMs, 126.5 MB L2", ("l2_mb", "sms")),
             **_from("cuda", "technical specifications, compute capability 10.0", _SMEM)},
    "MI300X": {"fp16_tensor_flops": ("mi300x", "peak FP16/BF16 matrix (dense)"),
               "fp32_flops": ("mi300x", "peak FP32 vector"), "hbm_gb": ("mi300x", "HBM3 capacity"),
               "hbm_bytes_per_s": ("mi300x", "HBM3 peak bandwidth"),
               **_from("rocm", "Instinct table, MI300X: 304 CUs, 64 KiB LDS per CU, 32 MiB L2 (4 per XCD)",
                       ("l2_mb", "sms", *_SMEM))},
}


def figure_source(preset: str, field: str) -> str:
    """The citation of one preset's figure: figure_source("H200 SXM", "hbm_bytes_per_s"). A note on the
    16-bit rate rides only with that rate, not with the sheet's other figures."""
    key, where = PRESET_SOURCES[preset][field]
    if field != "fp16_tensor_flops":
        where = where.replace(f"; {_DENSE}", "")
    return cite(key, where)


def preset_sources(presets: Iterable[str]) -> str:
    """One line naming, for each source the presets rest on, which of them it gives: the caption
    under a table of the GPUs. Presets not in PRESET_SOURCES (the reader's own GPU) are skipped."""
    uses: dict[str, list[str]] = {}
    for name in presets:
        for key, _ in PRESET_SOURCES.get(name, {}).values():
            uses.setdefault(key, [])
            if name not in uses[key]:
                uses[key].append(name)
    return "Sources: " + "; ".join(f"{cite(key)} ({', '.join(names)})" for key, names in uses.items()) + "."


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
    "sram_registers": Assumption(
        "one SRAM budget",
        "One budget M holds a tile step's whole working set: the Q, K and V tiles, the score tile S (or P) "
        "and the row statistics m and l. The sidebar sets M; the GPU table's \"per block\" column is the "
        "shared memory one thread block may use.",
        f"The papers' \"SRAM\" is shared memory ({cite('fa2', '§2.1')}: \"SRAM (aka shared memory)\"); the "
        f"first sizes it at 192 KB per SM on an A100 ({cite('fa1', '§2.1')}), the whole of the block that L1 and "
        "shared memory split. Registers are not part of it. In FlashAttention-2 and -3 kernels "
        "the K and V tiles sit in shared memory while S, P and the O accumulator live in registers, spread "
        f"over the warps ({cite('fa_code', 'flash_fwd_kernel.h')}), each with its own limit: shared memory "
        f"per block ({cite('cuda', 'technical specifications')}) and 64 K 32-bit registers per SM. Larger "
        f"tiles need more of both ({cite('fa2', '§3.3')})."),
    "two_level": Assumption(
        "no cache between HBM and SRAM",
        "The tile model (lessons 1 to 10, and 12) counts the traffic of one thread block at a time between "
        "HBM and its SRAM, with nothing in between: every query block reads all of K and V from HBM, "
        "Q + Tr (K + V) per head.",
        "Many blocks run at once and share a cache: an L2 of 40 to 126 MB on NVIDIA's presets, and on the "
        "MI300X a 256 MB Infinity Cache behind a 4 MB L2 per chiplet. On this project's H200, "
        "PyTorch's flash kernel reads about Q + K + V once from DRAM while one head's K and V fit in the part of "
        "its L2 the blocks running at once share, about half of it, and more past that "
        f"({cite('h200_measured', 'Nsight Compute, lessons 10 and 11')}); lesson 11 models the L2."),
    "l2": Assumption(
        "waves in step, LRU per tile",
        "Lesson 11's whole-GPU model: the blocks of a wave move along K and V together, so one DRAM read of a "
        "tile serves them all through the cache they share (NVIDIA's L2, of which a wave gets one of its two "
        "partitions; AMD CDNA 3's 256 MB Infinity Cache). Between two waves of a head, a tile stays if the "
        "bytes the cache takes between its two reads (the head's K and V, the other heads of the two waves up "
        "to or from that point of the sweep, the wave's Q and O tiles) fit that share, as under LRU; so near "
        "the crossover the next wave finds part of K and V and reads the rest again. On CDNA 3 the XCDs' "
        "private L2s are still all or nothing.",
        "Measured on the H200 (BENCHMARKS.md, issue 21): the blocks of a wave drift apart along K and V, most "
        "in PyTorch's flash kernel after many waves, so a tile can leave the cache before the last blocks "
        "read it, and then the kernel reads up to about twice what the model says (0.41-0.78x at 7 of 100 "
        "configs); the L2's replacement is not documented to be LRU, and next to the crossover some kernels "
        "keep more than LRU would. Lesson 11's targets set the model against the measured reads, config by "
        "config."),
    "schedule": Assumption(
        "one SM's tile schedule, units in order",
        "The schedule model (flashviz/hardware/schedule.py) lays one tile's work on one SM's units: the copies, the "
        "tensor cores (QK^T and PV, at the rate of the instruction the kernel uses), the exp unit and the FP32 "
        "lanes, each running one step at a time in the order the schedule issues them, at the SM's share of "
        "the unit's measured rate. FlashAttention-2's schedule adds a tile's matmuls and softmax, one block at a "
        "time on an SM (the model's choice: that kernel keeps two blocks an SM, whose warps interleave); "
        f"FlashAttention-3's overlaps one warp group's softmax with the other's matmuls ({cite('fa3', '§3.1')}) "
        "and, within a group, a tile's softmax with the previous tile's PV: the QKᵀ of tile j is issued, then the "
        "PV of tile j−1, and the softmax of tile j runs under the PV of tile j−1 "
        f"({cite('fa3', '§3.2, Algorithm 2')}), perfectly. Units go to the "
        "SM that frees first, in the kernel's launch order (flash-attn-4's causal grid longest first), each with its "
        "pipeline's fill and drain; DRAM overlaps everything. "
        "FlashAttention-3's authors' kernel (flash-attn-4's Hopper path, in CuTe DSL; not FlashAttention-3's own "
        "CUDA code, whose tile table is its own) runs the tiles its code picks, "
        "each unit at its rate per clock (measured with the unit's pipe at its peak) times the SM clock of its "
        "own call, lower than the unit-rate kernels' clock under the GPU's power cap. cuDNN, NVIDIA's own "
        "kernel, whose code is closed, is taken as FlashAttention-3's schedule on 128 x 128 tiles, at the clock "
        "its own counters read while it runs back to back. PyTorch's flash kernel is taken as "
        "FlashAttention-2's tiles, its matmuls at the rate mma.sync reaches per clock at the kernel's own 2 "
        "blocks of 4 warps an SM (two thirds of wgmma's), or, where its warps read whole K and V tiles faster "
        "than that, at shared memory's 128 bytes a clock per SM, times its own clock. A call through PyTorch's "
        "attention, or flash-attn-4's, also waits for the host's dispatch, measured apart.",
        "Real units share issue slots and registers, and a warp waits on barriers between the producer and "
        "the consumers and between the two consumer groups. Measured on the H200 (BENCHMARKS.md, issue 21): "
        "cuDNN's kernel takes about 1.25 times the cycles per tile of FlashAttention-3's schedule with every "
        "overlap perfect (its tensor pipe idle about a fifth of the time at d = 128, and its exp unit "
        "and tensor cores mostly one after the other at d = 64), so the model is faster than the kernel on "
        "the long calls, by up to about a third where the clock drops most (the long causal calls); how the "
        "dealing of units to SMs spreads the work, the model has right. On long calls PyTorch's flash kernel takes "
        "within about 7% of FlashAttention-2's cycles per tile, so the modelled speed-up of cuDNN over PyTorch "
        "flash comes out larger than measured, by about a sixth at the median and up to about a third, for the "
        "same reason: cuDNN's hand-overs between its warp groups, which the model leaves out. Against the "
        "authors' own kernel the same model holds within 0.8-1.25 of the measured time at nearly every call "
        "(BENCHMARKS.md): cuDNN's gap to it is cuDNN's, not FlashAttention-3's design's."),
    "occupancy": Assumption(
        "every unit full, by its vendor's limits",
        "Lesson 11 counts the blocks resident on each SM (compute unit) from the kernel's shared memory and "
        "registers against its architecture's limits: NVIDIA's compute capabilities 8.0, 9.0 and 10.0 (64 K "
        "32-bit registers, 32-thread warps, at most 32 blocks and 64 warps per SM, 1 KB of shared memory kept per "
        f"block; {cite('cuda')}) and AMD's CDNA 3 for the MI300X (wavefronts of 64, 512 registers per "
        f"lane on each of 4 SIMDs, 64 KB of LDS; {cite('rocm')}, {cite('llvm_amdgpu')}), and takes "
        "every unit as holding that many. A custom GPU gets the limits of these three: compute capabilities "
        "8.6, 8.7 and 8.9 (the RTX 30 and 40 series among them) keep at most 48 warps and 16 or 24 blocks per "
        "SM, so the model can give one of those more blocks than it holds.",
        "A grid smaller than one wave leaves units with fewer blocks. The registers per thread were read off "
        "the profiler on the H200 and change with the compiler and the GPU; the MI300X runs ROCm's own "
        "attention kernels, not the H200's."),
    "softmax_added": Assumption(
        "softmax time added to the matmuls",
        "Lesson 11's time model adds the softmax's time (exponentials and other FP32 work) to the matmuls' "
        "time, as in FlashAttention-2-style kernels, where the warps that run a tile's matmuls also run its "
        "softmax.",
        f"FlashAttention-3 hides most of it on Hopper: two warpgroups take turns, one's softmax running while "
        f"the other's matmuls do (ping-pong scheduling, {cite('fa3', '§3.1')}), and within a warpgroup the QKᵀ "
        "of tile j is issued, then the PV of tile j−1, and the softmax of tile j runs under the PV of tile j−1 "
        f"({cite('fa3', '§3.2, Algorithm 2')}); the time is then "
        "closer to the larger of the two than to their sum."),
    "bandwidth_share": Assumption(
        "bandwidth shared by the SMs in use",
        "Lesson 12: a kernel whose thread blocks fill k of the GPU's S SMs gets k/S of its HBM bandwidth and "
        "of its matmul rate.",
        "The matmul rate does scale with the SMs in use, but HBM bandwidth is not dealt out per SM: each SM "
        "is limited by the loads it keeps in flight, and a fraction of the SMs can draw most of the "
        "bandwidth. A kernel on few SMs loses less memory rate than k/S, so split-KV gains less than this "
        "model shows."),
    "split_merge": Assumption(
        "split-KV merge from HBM",
        "Lesson 12 runs the split-KV merge as a second kernel after the first: each split writes its "
        "(m, l, unnormalised O) to HBM and the merge reads them all back and writes O, timed by those bytes "
        "at its own blocks' share of the SMs.",
        "FlashAttention's split-KV path also runs a separate combine kernel "
        f"({cite('fa_code', 'flash_fwd_splitkv_combine_kernel')}), but its small partials may still be in L2 "
        f"when it reads them. {cite('flashdecoding')} writes each split's normalised output and one "
        "log-sum-exp per row instead of (m, l, unnormalised O): the same information, weighted by "
        "e^(lse_i − lse) in the merge."),
    "fp64": Assumption(
        "float64 arithmetic",
        "The NumPy runs (lessons 2 and 6 among them) compute in float64: exp overflows only past e^709.8 "
        "and rounding errors sit near 1e-16. The storage type sets the bytes counted, not the arithmetic.",
        "Attention kernels take fp16 or bf16 inputs and keep the softmax statistics and the O accumulator "
        "in float32, where exp overflows past e^88.7; stored in fp16 (largest 65,504) a value overflows "
        "past e^11.1. Their rounding steps are about 1e-3 (fp16) and 8e-3 (bf16), and errors against a "
        f"float64 reference are orders of magnitude above 1e-16 ({cite('fa3', 'numerical error table')})."),
    "emulated": Assumption(
        "emulated rounding",
        "Lesson 6's second half rounds every stored value to its type through ml_dtypes (round to nearest "
        "even) and runs the arithmetic of each step in NumPy's float32: matmuls accumulated in float32, "
        "exp in float32, the FP8 paths' P cast to float8 scaled by 2⁸ as FlashAttention-3's code does.",
        "Tensor cores add products in their own order and, for FP8 on Hopper, with fewer than float32's bits "
        "in the accumulator; kernels compute exp as exp2 on the special-function units, an approximation; "
        "FlashAttention-3's released FP8 path scales per tensor and head, not per tile. On this project's "
        "H200 the 16-bit kernels measure within a few percent of the emulation on the same inputs, except "
        f"where scores reach 1e5 and float32's own rounding of S decides ties "
        f"({cite('h200_measured', 'precision.csv, 2026-12-01')}); no FP8 kernel was measured."),
    "wide_rate": Assumption(
        "float32 at the CUDA-core rate",
        "Matmuls in float32 or float64 are counted at the FP32 CUDA-core rate, as the seed does; in fp16 "
        "or bf16 at the dense tensor-core rate.",
        "float64 runs at half the FP32 rate on these GPUs (A100: 9.7 against 19.5 TFLOP/s, or 19.5 on its "
        "FP64 tensor cores), and libraries may run float32 matmuls on tensor cores as TF32 (A100: 156 "
        f"TFLOP/s dense) ({cite('a100')})."),
    "roofline": Assumption(
        "roofline time",
        "A kernel's time is the larger of bytes ÷ HBM bandwidth and flops ÷ peak rate, at the vendor's "
        "peak figures (lessons 10 and 11: at the H200's measured ceilings).",
        "The roofline bounds the rate from above. It counts no launch cost, no time to fill a pipeline, no "
        "wave that leaves SMs idle, and takes copy and compute as perfectly overlapped. Real kernels reach "
        "part of each peak: on this project's H200 cuBLAS's fp16 matmul reached 707 to 728 of the 989 TFLOP/s in "
        "three runs (lessons 10, 11 and 13 each use their own run's) and a device "
        f"copy about 4.1 of the 4.8 TB/s ({cite('h200_measured', 'whole_gpu_ceilings.csv, 2026-11-30')}). Work "
        "that is not a matmul (lesson 1's softmax) is timed at the sheet's FP32 rate, which counts a fused "
        "multiply-add as two operations: the softmax's are not fused, and its exponentials run on a unit of their "
        f"own (16 a clock per SM on a B200: {cite('fa4', 'exp unit and shared-memory rates')}), so its real compute "
        "time is longer than this counts."),
    "same_kernels": Assumption(
        "the H200's kernels on every GPU",
        "Lesson 11 places each kernel on every GPU with the tiles, threads and registers per thread that "
        "Nsight Compute read on the H200; on AMD CDNA 3 its 128 or 256 threads are two or four wavefronts of 64.",
        "Each GPU runs its own build: on an A100 or B200 the compiler may allocate other registers, and on "
        "the MI300X PyTorch's flash attention is a different kernel (ROCm's), with tiles, stages and register "
        "use of its own. The residency and the wave count are the model's, not measured there."),
    "decode_blocks": Assumption(
        "one block per K/V head",
        "A decoding step runs one thread block per (sequence, K/V head), the group's query heads stacked as the "
        "rows of its tile, so each cached byte is read once per step.",
        "Kernels differ: FlashAttention-2's decoding path packs a group's query heads this way; vLLM's "
        "PagedAttention kernel gives each query head its own block, and the heads of a group then each read "
        "the shared K and V (through L2)."),
    "mask_tiles": Assumption(
        "a masked tile costs a whole tile",
        "A tile the mask leaves any key in is loaded and multiplied whole, full or partial: its masked scores "
        "are computed and then set to −inf, and the comparisons that mask them are not counted. A tile with no "
        "key seen is never loaded nor computed. Lesson 14 counts packed documents as one sequence of n tokens in "
        "Br × Bc tiles with the documents' block-diagonal mask.",
        "Kernels do the same per tile: flash-attn computes each query block's range of key blocks and masks "
        f"only the partial ones, a few instructions per score ({cite('fa_window', 'block_info.py, mask.py')}). "
        "Its variable-length path (cu_seqlens) tiles each document on its own, a query block never spanning two "
        "documents, so at a document boundary it computes a few tiles other than this count's."),
    "b200_model": Assumption(
        "a B200 from sourced rates",
        "Lesson 13's B200 is a model of a GPU this project did not measure: 128 x 128 score tiles on one SM at "
        "the sheet's dense 16-bit tensor rate (2.25 PFLOP/s) and FP32 rate ÷ 2 operations a second, the exp unit "
        f"at 16 a clock per SM and shared memory at 128 bytes a clock per SM ({cite('fa4_blog')}; "
        f"{cite('fa4', 'exp unit and shared-memory rates')}) at the clock that gives 8,192 tensor flops a clock "
        "per SM. Each unit does one step at a time, in the order the design issues them; an MMA lasts the longer "
        "of its flops and its operand reads from shared memory. FA3's design is FlashAttention-3's ping-pong of "
        "two 64-row warp groups, each reading its Q rows and the whole K tile for QKᵀ and V for PV, O rescaled "
        "at every tile. FA4's design is flash_fwd_sm100.py's as far as its source says: two 128-row Q tiles per "
        "SM, one MMA warp issuing S0, S1, then per Q tile the PV of the last key tile before the QKᵀ of the "
        "next; P read from tensor memory; the polynomial (7 FP32 operations each, "
        f"{cite('fa4_utils', 'ex2_emulation')}) running beside the exp unit's share at the share that makes the "
        "two units equally busy; O rescaled by the correction warps after the row sum, for the warps whose rows' "
        "max moved, counted by the engine's lagging max on random rows (four query blocks of 128; past 65,536 keys "
        "the call's last block alone). The copies from DRAM are left out.",
        "FlashAttention-4's kernel runs more than this model: P written to tensor memory in two parts so PV can "
        "start early, its conversion to 16 bits and the tensor-memory loads and stores on the same lanes, the "
        "polynomial's integer steps on the integer pipe, the 2-CTA MMA that halves each SM's reads of K and V, "
        "its own tuned share of the polynomial (its ex2_emu_freq table), and warps that the SM's schedulers "
        "interleave rather "
        "than steps one after another. Real scores are not random rows: Modal's reading of the kernel reports "
        f"about ten times fewer rescales of O ({cite('modal_fa4')}). Shared memory bounds the backward, which this "
        "model does "
        "not draw. Its measured 1,605 TFLOP/s (71% of the B200's peak) is the kernel's, not this model's."),
    "prefill_full": Assumption(
        "prefill without its mask",
        "Lesson 12 counts prefill as full attention over the prompt: every query row meets every key.",
        "A prompt is causal: each token sees only the tokens before it, and FlashAttention skips the tiles "
        f"above the diagonal ({cite('fa2', '§3.1.1')}), about half the flops and half the reads of K and V. "
        "The flops per byte, which decide the bound, stay about the same."),
}


def assumptions_markdown() -> str:
    """The assumptions as the app lists them, one heading each, for docs/model.md (docs/make_model_doc.py
    writes it there; tests/test_docs.py checks the page equals it)."""
    return "".join(f"\n### {a.title[0].upper() + a.title[1:]}\n\n{a.model}\n\n*On real GPUs:* {a.real}\n"
                   for a in ASSUMPTIONS.values())
