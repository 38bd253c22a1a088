// mma.sync's rate per cycle and SM at a chosen occupancy (issue 21, part 2 continued).
//
// PyTorch's flash kernel (FlashAttention-2's code) issues Ampere's mma.sync
// (m16n8k16, fp16 in, fp32 accumulate) from blocks of 4 warps, 2 blocks an SM on the H200
// (Nsight Compute: 255 registers a thread, occupancy limit 2 by registers and by shared memory).
// Each warp here runs CHAINS independent accumulators for STEPS rounds, operands in registers:
// the tensor cores alone, no memory. Thread 0 of each block stamps %smid, clock64 and %globaltimer
// before and after; per SM, flops over (last end - first start) cycles is its rate per cycle,
// cycles over nanoseconds its clock. CUDA events time the whole launch.
//
//   nvcc -O3 -arch=sm_90 -o mma_sync_rate mma_sync_rate.cu
//   ./mma_sync_rate BLOCKS_PER_SM WARPS_PER_BLOCK CHAINS MMAS_PER_WARP [REPEATS]
// prints one line: key=value pairs (the Python driver parses them).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <map>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("error=%s line=%d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

template <int CHAINS>
__global__ void mma_chain(const unsigned* in, float* out, unsigned long long* stamps, int steps) {
    unsigned a0 = in[threadIdx.x & 31], a1 = in[(threadIdx.x + 1) & 31], a2 = in[(threadIdx.x + 2) & 31],
             a3 = in[(threadIdx.x + 3) & 31], b0 = in[(threadIdx.x + 4) & 31], b1 = in[(threadIdx.x + 5) & 31];
    float acc[CHAINS][4];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = 0.f;
    __syncthreads();
    unsigned long long c0 = clock64(), t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                         "{%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
    }
    __syncthreads();
    unsigned long long c1 = clock64(), t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    float sum = 0.f;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        unsigned long long* p = stamps + 5 * blockIdx.x;
        p[0] = sm; p[1] = c0; p[2] = c1; p[3] = t0; p[4] = t1;
    }
}

typedef void (*Kern)(const unsigned*, float*, unsigned long long*, int);

int main(int argc, char** argv) {
    if (argc < 5) { printf("usage: %s BLOCKS_PER_SM WARPS CHAINS MMAS_PER_WARP [REPEATS]\n", argv[0]); return 2; }
    int bps = atoi(argv[1]), warps = atoi(argv[2]), chains = atoi(argv[3]);
    long mmas = atol(argv[4]);
    int repeats = argc > 5 ? atoi(argv[5]) : 5;
    Kern k = chains == 1 ? mma_chain<1> : chains == 2 ? mma_chain<2> : chains == 4 ? mma_chain<4>
           : chains == 8 ? mma_chain<8> : chains == 16 ? mma_chain<16> : nullptr;
    if (!k) { printf("error=chains must be 1 2 4 8 or 16\n"); return 2; }
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int grid = sms * bps, block = 32 * warps, steps = (int)(mmas / chains);
    unsigned *in; float* out; unsigned long long* stamps;
    std::vector<unsigned> h_in(32);
    for (int i = 0; i < 32; ++i) h_in[i] = 0x3c003c00u ^ (unsigned)(i * 0x00010001u);  // fp16 pairs near 1
    CHECK(cudaMalloc(&in, 32 * sizeof(unsigned)));
    CHECK(cudaMalloc(&out, (size_t)grid * block * sizeof(float)));
    CHECK(cudaMalloc(&stamps, (size_t)grid * 5 * sizeof(unsigned long long)));
    CHECK(cudaMemcpy(in, h_in.data(), 32 * sizeof(unsigned), cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
    k<<<grid, block>>>(in, out, stamps, steps);  // warm-up
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    std::vector<double> per_cycle, mhz;
    std::vector<unsigned long long> h((size_t)grid * 5);
    int max_blocks_on_sm = 0, min_blocks_on_sm = 1 << 30;
    for (int r = 0; r < repeats; ++r) {
        CHECK(cudaEventRecord(a));
        k<<<grid, block>>>(in, out, stamps, steps);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float t; CHECK(cudaEventElapsedTime(&t, a, b)); ms.push_back(t);
        CHECK(cudaMemcpy(h.data(), stamps, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        std::map<unsigned, std::vector<int>> by_sm;
        for (int i = 0; i < grid; ++i) by_sm[(unsigned)h[5 * i]].push_back(i);
        for (auto& kv : by_sm) {
            unsigned long long cs = ~0ull, ce = 0, ts = ~0ull, te = 0;
            for (int i : kv.second) {
                cs = std::min(cs, h[5 * i + 1]); ce = std::max(ce, h[5 * i + 2]);
                ts = std::min(ts, h[5 * i + 3]); te = std::max(te, h[5 * i + 4]);
            }
            double flops = (double)kv.second.size() * warps * (double)steps * chains * 4096.0;
            per_cycle.push_back(flops / (double)(ce - cs));
            mhz.push_back(1e3 * (double)(ce - cs) / (double)(te - ts));
            max_blocks_on_sm = std::max(max_blocks_on_sm, (int)kv.second.size());
            min_blocks_on_sm = std::min(min_blocks_on_sm, (int)kv.second.size());
        }
    }
    std::sort(ms.begin(), ms.end()); std::sort(per_cycle.begin(), per_cycle.end()); std::sort(mhz.begin(), mhz.end());
    double total = (double)grid * warps * (double)steps * chains * 4096.0;
    double med = ms[ms.size() / 2];
    printf("blocks_per_sm=%d warps_per_block=%d chains=%d mmas_per_warp=%ld ms=%.4f tflops=%.2f "
           "flops_per_cycle_sm_median=%.1f flops_per_cycle_sm_min=%.1f flops_per_cycle_sm_max=%.1f mhz_median=%.1f "
           "blocks_on_sm_min=%d blocks_on_sm_max=%d\n",
           bps, warps, chains, (long)steps * chains, med, total / (med * 1e-3) / 1e12, per_cycle[per_cycle.size() / 2],
           per_cycle.front(), per_cycle.back(), mhz[mhz.size() / 2], min_blocks_on_sm, max_blocks_on_sm);
    return 0;
}
