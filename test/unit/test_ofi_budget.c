/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ofi_budget.c — how the network channel sizes its packets and
 * credits within LOCUS_OFI_RX_POOL (lc_ofi_budget): the packet shrinks
 * first, down to the floor, then the credits, down to 4; the receive
 * buffers stay within the pool wherever the floors allow it.
 */
#include "channel/lc_ofi_impl.h"

#include <stdio.h>

#include "lc_unit_check.h"

#define KiB ((size_t)1024)
#define MiB (KiB * KiB)

/* One case: the outcome, and the pool bound unless a floor forbids it. */
static void expect(size_t eager, size_t pool, uint32_t credits, int npeers, size_t want_packet,
                   uint32_t want_credits)
{
    size_t packet;
    uint32_t got;
    lc_ofi_budget(eager, pool, credits, npeers, &packet, &got);
    CHECKF(packet == want_packet && got == want_credits,
          "eager %zu pool %zu credits %u peers %d: packet %zu credits %u, expected %zu and %u", eager, pool,
          credits, npeers, packet, got, want_packet, want_credits);
    size_t used = (size_t)npeers * (got + 3) * lc_ofi_slot(packet);
    int at_floor = packet <= LC_OFI_PACKET_FLOOR && got <= 4;
    CHECKF(used <= pool || at_floor, "peers %d use %zu bytes of a %zu-byte pool", npeers, used, pool);
    CHECKF(packet % 8 == 0, "packet %zu not 8-byte aligned", packet);
}

int main(void)
{
    /* Few peers: the whole eager limit and every credit. */
    expect(64 * KiB, 64 * MiB, 32, 1, 64 * KiB, 32);
    expect(64 * KiB, 64 * MiB, 32, 28, 64 * KiB, 32);
    /* More peers: smaller packets, credits kept. */
    expect(64 * KiB, 64 * MiB, 32, 100, 19072, 32);
    /* Many: the packet floor, then fewer credits, then the credit floor. */
    expect(64 * KiB, 64 * MiB, 32, 200, LC_OFI_PACKET_FLOOR, 17);
    expect(64 * KiB, 64 * MiB, 32, 4000, LC_OFI_PACKET_FLOOR, 4);
    /* An eager limit below the floor is kept; odd sizes are aligned. */
    expect(1 * KiB, 64 * MiB, 4, 4000, 1 * KiB, 4);
    expect(1001, 64 * MiB, 8, 2, 1008, 8);
    expect(10, 64 * MiB, 8, 2, 256, 8);
    /* Fewer credits asked than the floor: kept. */
    expect(64 * KiB, 1 * MiB, 2, 100, LC_OFI_PACKET_FLOOR, 2);
    if (failures) return 1;
    printf("ofi budget: ok\n");
    return 0;
}
