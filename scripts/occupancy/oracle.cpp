// Ground truth for /occupancy: runs NVIDIA's cuda_occupancy.h (host-compilable C++) on cases read from stdin.
//
// Input, one case per line:  major minor threads regs static_smem dynamic_smem carveout max_dynamic_smem barriers
//   carveout -1 = no preference (SHAREDMEM_CARVEOUT_DEFAULT); max_dynamic_smem = cudaFuncAttributeMaxDynamicSharedMemorySize.
// Output, one line per case:  status active limiting_factors limit_regs limit_smem limit_warps limit_blocks
//   limit_barriers limit_virtual allocated_regs_per_block allocated_smem_per_block
// `--props` prints the device properties used per compute capability instead.
//
// Device properties are what cudaGetDeviceProperties reports for a part of each compute capability
// (CUDA Programming Guide 13.x §5.1.3 Tables 30-32; sm_70 from NVIDIA/cccl arch_traits.h, absent from the 13.x guide).
#include <cuda_occupancy.h>
#include <cstdio>
#include <cstring>

struct DeviceRow {
    int major, minor;
    int maxThreadsPerMultiprocessor;
    size_t sharedMemPerMultiprocessor;
    size_t sharedMemPerBlockOptin;
    size_t reservedSharedMemPerBlock;
};

static const DeviceRow DEVICES[] = {
    {7, 0, 2048, 96 * 1024, 96 * 1024, 0},
    {7, 5, 1024, 64 * 1024, 64 * 1024, 0},
    {8, 0, 2048, 164 * 1024, 163 * 1024, 1024},
    {8, 6, 1536, 100 * 1024, 99 * 1024, 1024},
    {8, 9, 1536, 100 * 1024, 99 * 1024, 1024},
    {9, 0, 2048, 228 * 1024, 227 * 1024, 1024},
    {10, 0, 2048, 228 * 1024, 227 * 1024, 1024},
    {12, 0, 1536, 100 * 1024, 99 * 1024, 1024},
};

static bool fill(cudaOccDeviceProp *p, int major, int minor) {
    for (const DeviceRow &d : DEVICES) {
        if (d.major != major || d.minor != minor) continue;
        p->computeMajor = major;
        p->computeMinor = minor;
        p->maxThreadsPerBlock = 1024;
        p->maxThreadsPerMultiprocessor = d.maxThreadsPerMultiprocessor;
        p->regsPerBlock = 64 * 1024;
        p->regsPerMultiprocessor = 64 * 1024;
        p->warpSize = 32;
        p->sharedMemPerBlock = 48 * 1024;
        p->sharedMemPerMultiprocessor = d.sharedMemPerMultiprocessor;
        p->numSms = 1;
        p->sharedMemPerBlockOptin = d.sharedMemPerBlockOptin;
        p->reservedSharedMemPerBlock = d.reservedSharedMemPerBlock;
        return true;
    }
    return false;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--props") == 0) {
        for (const DeviceRow &d : DEVICES) {
            cudaOccDeviceProp p;
            fill(&p, d.major, d.minor);
            printf("%d %d %d %d %d %d %d %zu %zu %zu %zu\n", p.computeMajor, p.computeMinor, p.maxThreadsPerBlock,
                   p.maxThreadsPerMultiprocessor, p.regsPerBlock, p.regsPerMultiprocessor, p.warpSize,
                   p.sharedMemPerBlock, p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin,
                   p.reservedSharedMemPerBlock);
        }
        return 0;
    }
    int major, minor, threads, regs, carveout, barriers;
    size_t staticSmem, dynamicSmem, maxDynamic;
    while (scanf("%d %d %d %d %zu %zu %d %zu %d", &major, &minor, &threads, &regs, &staticSmem, &dynamicSmem,
                 &carveout, &maxDynamic, &barriers) == 9) {
        cudaOccDeviceProp prop;
        if (!fill(&prop, major, minor)) {
            fprintf(stderr, "no device row for %d.%d\n", major, minor);
            return 2;
        }
        // As the runtime converts cudaFuncAttributes: opt-in shared memory limit, the kernel's own max dynamic size.
        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = 1024;
        attr.numRegs = regs;
        attr.sharedSizeBytes = staticSmem;
        attr.partitionedGCConfig = PARTITIONED_GC_OFF;
        attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        attr.maxDynamicSharedSizeBytes = maxDynamic;
        attr.numBlockBarriers = barriers;
        attr.virtualResourceCount = 0;
        cudaOccDeviceState state;
        state.carveoutConfig = carveout;
        cudaOccResult r;
        memset(&r, 0, sizeof r);
        cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, threads, dynamicSmem);
        printf("%d %d %u %d %d %d %d %d %d %d %zu\n", (int)status, r.activeBlocksPerMultiprocessor, r.limitingFactors,
               r.blockLimitRegs, r.blockLimitSharedMem, r.blockLimitWarps, r.blockLimitBlocks, r.blockLimitBarriers,
               r.blockLimitVirtual, r.allocatedRegistersPerBlock, r.allocatedSharedMemPerBlock);
    }
    return 0;
}
