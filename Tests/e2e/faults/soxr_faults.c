/* Fault injection for suite-concurrent-start.sh, loaded into the server with LD_PRELOAD.
 *
 * libsoxr 0.1.3 initialises the OpenMP locks that guard its process-wide DFT table lazily, with no
 * synchronisation (fft4g_cache.h, LSX_INIT_FFT_CACHE): two filter designs at once can both see the
 * table uninitialised and initialise its locks twice, one of them while the other thread holds
 * them - the hang of issue 35. This file makes that visible and makes a stuck C call on demand:
 *
 *  - omp_init_lock / omp_destroy_lock are logged ("I addr", "D addr") to $VB_FAULT_LOG, and each
 *    initialisation is slowed by $VB_FAULT_INIT_DELAY_US, widening the race window from
 *    nanoseconds to milliseconds. A lock initialised twice with no destroy between is the race.
 *  - soxr_create waits while the file $VB_FAULT_BLOCK exists: a C call that never returns, as
 *    libsoxr's was, to show /healthz and SIGTERM still answering.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The next definition of NAME (libgomp's, libsoxr's); they are in the global scope, as they are in
 * a process linked against libsoxr. Missing: say so and stop, rather than crash later. */
static void *next(const char *name) {
    void *found = dlsym(RTLD_NEXT, name);
    if (!found) { fprintf(stderr, "soxr_faults: no %s after this library\n", name); abort(); }
    return found;
}

static void record(char what, void *lock) {
    const char *path = getenv("VB_FAULT_LOG");
    if (!path) return;
    char line[64];
    int n = snprintf(line, sizeof line, "%c %p\n", what, lock);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    if (write(fd, line, n) != n) { /* a short log fails the suite's count, which is what we want */ }
    close(fd);
}

void omp_init_lock(void *lock) {
    static void (*real)(void *);
    if (!real) real = (void (*)(void *))next("omp_init_lock");
    record('I', lock);
    const char *delay = getenv("VB_FAULT_INIT_DELAY_US");
    if (delay) usleep((useconds_t)atoi(delay));
    real(lock);
}

void omp_destroy_lock(void *lock) {
    static void (*real)(void *);
    if (!real) real = (void (*)(void *))next("omp_destroy_lock");
    record('D', lock);
    real(lock);
}

void *soxr_create(double input_rate, double output_rate, unsigned channels, void *error,
                  const void *io_spec, const void *quality_spec, const void *runtime_spec) {
    static void *(*real)(double, double, unsigned, void *, const void *, const void *, const void *);
    if (!real) real = (void *(*)(double, double, unsigned, void *, const void *, const void *, const void *))next("soxr_create");
    const char *block = getenv("VB_FAULT_BLOCK");
    while (block && access(block, F_OK) == 0) usleep(50000);
    return real(input_rate, output_rate, channels, error, io_spec, quality_spec, runtime_spec);
}
