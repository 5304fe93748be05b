// The least work of two ways to enqueue a tracked event, timed against an atomic fetch-add.
//
//   cc -O2 -pthread -o /tmp/enqueue-floors docs/models/enqueue-floors.c && /tmp/enqueue-floors
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
// - claim and publish: the ordered call without its loads and the event's stores: the fetch-add and
//   the release store of the slot's sequence, the least any call that claims a shared slot does.
// - "+ retain": each call also increments a shared counter first, as an app's retain of a
//   dictionary shared by every call does (Swift's retain is a call with one locked instruction).
//
// Each batch of 2,048 calls goes into a ring of 4,096 slots, and the ring is emptied before the
// next batch in one of two ways:
// - in cache: the timing thread resets the slots itself, so they stay in its cache (lower bounds);
// - drained: a consumer thread takes every event and hands its slot back, as the engine does
//   between `tracking-storm`'s timed batches, so each slot's line comes back from the consumer's
//   core. (The consumer waits for work by spinning, so give the model two free cores.)
// Batches of the six kinds alternate; the figures are medians over 301 batches of each.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { capacity = 4096, calls = 2048, batches = 301 };

typedef struct { _Alignas(64) _Atomic uint64_t sequence; uint64_t words[4]; uint8_t tag; } slot_t;
typedef struct { slot_t *slots; _Alignas(64) uint64_t head; _Alignas(64) _Atomic uint64_t taken; } ring_t;

static ring_t shared_ring, own_storage;
static _Alignas(64) _Atomic uint64_t claimed;
static _Alignas(64) _Atomic uint64_t counter;
static _Alignas(64) _Atomic uint64_t refcount;
static _Alignas(64) _Atomic uint8_t open_flag = 1;
static _Atomic uint8_t consumer_sleeping;
static _Atomic uint64_t switch_epoch;
static __thread ring_t *own_ring;

// The consumer's orders: the ring to drain and through which position, and a count of requests.
static _Alignas(64) _Atomic uint64_t requests;
static _Atomic uint64_t answered;
static ring_t *_Atomic drain_ring;
static _Atomic uint64_t drain_through;

__attribute__((noinline)) static void retain(void) { atomic_fetch_add_explicit(&refcount, 1, memory_order_relaxed); }

__attribute__((noinline)) static void ordered(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    if (!atomic_load_explicit(&open_flag, memory_order_relaxed)) abort();
    uint64_t position = atomic_fetch_add_explicit(&claimed, 1, memory_order_seq_cst);
    __builtin_prefetch(&shared_ring.slots[(position + 16) & (capacity - 1)], 1, 3);
    slot_t *slot = &shared_ring.slots[position & (capacity - 1)];
    if (atomic_load_explicit(&slot->sequence, memory_order_acquire) != position) abort();
    slot->words[0] = a; slot->words[1] = b; slot->words[2] = c; slot->words[3] = d; slot->tag = 0;
    atomic_store_explicit(&slot->sequence, position + 1, memory_order_release);
    if (atomic_load_explicit(&consumer_sleeping, memory_order_relaxed)) abort();
}

__attribute__((noinline)) static void per_thread(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    if (!atomic_load_explicit(&open_flag, memory_order_relaxed)) abort();
    ring_t *ring = own_ring;
    uint64_t epoch = atomic_load_explicit(&switch_epoch, memory_order_acquire);
    uint64_t position = ring->head;
    __builtin_prefetch(&ring->slots[(position + 16) & (capacity - 1)], 1, 3);
    slot_t *slot = &ring->slots[position & (capacity - 1)];
    if (atomic_load_explicit(&slot->sequence, memory_order_acquire) != position) abort();
    slot->words[0] = a; slot->words[1] = b; slot->words[2] = c; slot->words[3] = d; slot->tag = (uint8_t)epoch;
    atomic_store_explicit(&slot->sequence, position + 1, memory_order_release);
    ring->head = position + 1;
    if (atomic_load_explicit(&consumer_sleeping, memory_order_relaxed)) abort();
}

__attribute__((noinline)) static void claim_and_publish(void) {
    uint64_t position = atomic_fetch_add_explicit(&claimed, 1, memory_order_seq_cst);
    slot_t *slot = &shared_ring.slots[position & (capacity - 1)];
    atomic_store_explicit(&slot->sequence, position + 1, memory_order_release);
}

__attribute__((noinline)) static void fetch_add(void) { atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

// Takes each published event of `ring` up to `through` and hands its slot back.
static void take_events(ring_t *ring, uint64_t through) {
    uint64_t position = atomic_load_explicit(&ring->taken, memory_order_relaxed);
    for (; position < through; position++) {
        slot_t *slot = &ring->slots[position & (capacity - 1)];
        while (atomic_load_explicit(&slot->sequence, memory_order_acquire) != position + 1) {}
        volatile uint64_t word = slot->words[0];
        (void)word;
        atomic_store_explicit(&slot->sequence, position + capacity, memory_order_release);
    }
    atomic_store_explicit(&ring->taken, position, memory_order_relaxed);
}

static void *consumer(void *unused) {
    (void)unused;
    for (uint64_t seen = 0;;) {
        uint64_t request;
        while ((request = atomic_load_explicit(&requests, memory_order_acquire)) == seen) {}
        if (request == UINT64_MAX) return NULL;
        seen = request;
        take_events(atomic_load(&drain_ring), atomic_load(&drain_through));
        atomic_store_explicit(&answered, seen, memory_order_release);
    }
}

// Empties `ring` up to `through`, on this thread (in cache) or the consumer's (drained).
static void empty(ring_t *ring, uint64_t through, int drained) {
    if (!drained) {
        take_events(ring, through);
        return;
    }
    atomic_store(&drain_ring, ring);
    atomic_store(&drain_through, through);
    uint64_t request = atomic_fetch_add_explicit(&requests, 1, memory_order_release) + 1;
    while (atomic_load_explicit(&answered, memory_order_acquire) != request) {}
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void run(int drained) {
    static double times[6][batches];
    for (int batch = 0; batch < batches; batch++) {
        double start;
        start = now(); for (int i = 0; i < calls; i++) ordered(i, 2, 3, 4);
        times[0][batch] = (now() - start) / calls;
        empty(&shared_ring, atomic_load(&claimed), drained);
        start = now(); for (int i = 0; i < calls; i++) per_thread(i, 2, 3, 4);
        times[1][batch] = (now() - start) / calls;
        empty(own_ring, own_ring->head, drained);
        start = now(); for (int i = 0; i < calls; i++) { retain(); ordered(i, 2, 3, 4); }
        times[2][batch] = (now() - start) / calls;
        empty(&shared_ring, atomic_load(&claimed), drained);
        start = now(); for (int i = 0; i < calls; i++) { retain(); per_thread(i, 2, 3, 4); }
        times[3][batch] = (now() - start) / calls;
        empty(own_ring, own_ring->head, drained);
        start = now(); for (int i = 0; i < calls; i++) claim_and_publish();
        times[4][batch] = (now() - start) / calls;
        empty(&shared_ring, atomic_load(&claimed), drained);
        start = now(); for (int i = 0; i < calls; i++) fetch_add();
        times[5][batch] = (now() - start) / calls;
    }
    for (int kind = 0; kind < 6; kind++) qsort(times[kind], batches, sizeof(double), by_value);
    double base = times[5][batches / 2];
    const char *names[] = {"ordered", "per-thread", "ordered + retain", "per-thread + retain", "claim and publish"};
    printf("%s: fetch-add %.2f ns\n", drained ? "drained by a consumer thread" : "in cache", base);
    for (int kind = 0; kind < 5; kind++)
        printf("  %-20s %.2f ns  %.2fx a fetch-add\n", names[kind], times[kind][batches / 2], times[kind][batches / 2] / base);
}

int main(void) {
    shared_ring.slots = aligned_alloc(64, sizeof(slot_t) * capacity);
    own_storage.slots = aligned_alloc(64, sizeof(slot_t) * capacity);
    for (uint64_t index = 0; index < capacity; index++) {
        atomic_store(&shared_ring.slots[index].sequence, index);
        atomic_store(&own_storage.slots[index].sequence, index);
    }
    own_ring = &own_storage;
    pthread_t thread;
    pthread_create(&thread, NULL, consumer, NULL);
    run(0);
    run(1);
    atomic_store(&requests, UINT64_MAX);
    pthread_join(thread, NULL);
    return 0;
}
