// The least work of two ways to enqueue a tracked event, timed against an atomic fetch-add.
//
//   cc -O2 -o /tmp/enqueue-floors docs/models/enqueue-floors.c && /tmp/enqueue-floors
//
// - ordered: one ring shared by every producer (what the engine does): an open flag read, a
//   fetch-add that claims the slot, the slot's free check, the event's five words stored, the
//   release store that publishes it, the consumer's sleeping flag read.
// - per-thread: a ring of the calling thread's own: the same loads and stores, no claim. The ring is
//   reached through a thread-local pointer; the event carries the customer-switch epoch, read with
//   one acquire load (how a consumer merging many rings would attribute it to the right customer);
//   the sleeping flag read has no fence before it, which is only safe if a consumer falling asleep
//   makes every producer's thread fence for it (Linux `membarrier`), at a cost of microseconds each
//   time it sleeps.
// - "+ retain": each call also increments a shared counter first, as an app's retain of a
//   dictionary shared by every call does (Swift's retain is a call with one locked instruction).
//
// Nothing consumes: each batch of 2,048 calls fills a ring that is reset before the next. The
// slots stay in this thread's cache, so these are lower bounds, not rival rings. Batches of the
// five kinds alternate; the figures are medians over 301 batches of each.
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { capacity = 4096, calls = 2048, batches = 301 };
typedef struct { _Alignas(64) _Atomic uint64_t sequence; uint64_t words[4]; uint8_t tag; } slot_t;
typedef struct { slot_t *slots; uint64_t head; } own_ring_t;

static slot_t *shared_slots;
static _Alignas(64) _Atomic uint64_t claimed;
static _Alignas(64) _Atomic uint64_t counter;
static _Alignas(64) _Atomic uint64_t refcount;
static _Alignas(64) _Atomic uint8_t open_flag = 1;
static _Atomic uint8_t consumer_sleeping;
static _Atomic uint64_t switch_epoch;
static __thread own_ring_t *own_ring;

__attribute__((noinline)) static void retain(void) { atomic_fetch_add_explicit(&refcount, 1, memory_order_relaxed); }

__attribute__((noinline)) static void ordered(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    if (!atomic_load_explicit(&open_flag, memory_order_relaxed)) abort();
    uint64_t position = atomic_fetch_add_explicit(&claimed, 1, memory_order_seq_cst);
    __builtin_prefetch(&shared_slots[(position + 16) & (capacity - 1)], 1, 3);
    slot_t *slot = &shared_slots[position & (capacity - 1)];
    if (atomic_load_explicit(&slot->sequence, memory_order_acquire) != position) abort();
    slot->words[0] = a; slot->words[1] = b; slot->words[2] = c; slot->words[3] = d; slot->tag = 0;
    atomic_store_explicit(&slot->sequence, position + 1, memory_order_release);
    if (atomic_load_explicit(&consumer_sleeping, memory_order_relaxed)) abort();
}

__attribute__((noinline)) static void per_thread(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    if (!atomic_load_explicit(&open_flag, memory_order_relaxed)) abort();
    own_ring_t *ring = own_ring;
    uint64_t epoch = atomic_load_explicit(&switch_epoch, memory_order_acquire);
    uint64_t position = ring->head;
    slot_t *slot = &ring->slots[position & (capacity - 1)];
    if (atomic_load_explicit(&slot->sequence, memory_order_acquire) != position) abort();
    slot->words[0] = a; slot->words[1] = b; slot->words[2] = c; slot->words[3] = d; slot->tag = (uint8_t)epoch;
    atomic_store_explicit(&slot->sequence, position + 1, memory_order_release);
    ring->head = position + 1;
    if (atomic_load_explicit(&consumer_sleeping, memory_order_relaxed)) abort();
}

__attribute__((noinline)) static void fetch_add(void) { atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void reset(slot_t *slots) {
    for (uint64_t index = 0; index < capacity; index++) atomic_store(&slots[index].sequence, index);
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int main(void) {
    static own_ring_t ring;
    shared_slots = aligned_alloc(64, sizeof(slot_t) * capacity);
    ring.slots = aligned_alloc(64, sizeof(slot_t) * capacity);
    own_ring = &ring;
    static double times[5][batches];
    for (int batch = 0; batch < batches; batch++) {
        double start;
        reset(shared_slots); atomic_store(&claimed, 0);
        start = now(); for (int i = 0; i < calls; i++) ordered(i, 2, 3, 4);
        times[0][batch] = (now() - start) / calls;
        reset(ring.slots); ring.head = 0;
        start = now(); for (int i = 0; i < calls; i++) per_thread(i, 2, 3, 4);
        times[1][batch] = (now() - start) / calls;
        reset(shared_slots); atomic_store(&claimed, 0);
        start = now(); for (int i = 0; i < calls; i++) { retain(); ordered(i, 2, 3, 4); }
        times[2][batch] = (now() - start) / calls;
        reset(ring.slots); ring.head = 0;
        start = now(); for (int i = 0; i < calls; i++) { retain(); per_thread(i, 2, 3, 4); }
        times[3][batch] = (now() - start) / calls;
        start = now(); for (int i = 0; i < calls; i++) fetch_add();
        times[4][batch] = (now() - start) / calls;
    }
    for (int kind = 0; kind < 5; kind++) qsort(times[kind], batches, sizeof(double), by_value);
    double base = times[4][batches / 2];
    const char *names[] = {"ordered", "per-thread", "ordered + retain", "per-thread + retain"};
    printf("fetch-add %.2f ns\n", base);
    for (int kind = 0; kind < 4; kind++)
        printf("%-20s %.2f ns  %.2fx a fetch-add\n", names[kind], times[kind][batches / 2], times[kind][batches / 2] / base);
    return 0;
}
