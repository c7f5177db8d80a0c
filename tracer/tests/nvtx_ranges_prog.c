/* A program that marks its work with NVTX v3 (header-only), as a training
 * loop does, for tracer/tests/nvtx_steps.sh. No GPU, no CUDA.
 *
 * usage: nvtx_ranges_prog STEPS STEP_MS EXIT_STATUS
 * Pushes STEPS ranges "train_step" of about STEP_MS each (ASCII push/pop),
 * each with a nested "forward" (event attributes, ASCII) and "backward"
 * (Unicode); a range in its own domain "io" (registered string); one
 * start/end range "epoch" around the loop, ended on another thread; a mark.
 * A worker thread pushes 5 "prefetch" ranges of its own, so the test sees
 * that ranges keep their thread. Prints one line (with the loop's ns per
 * range) and exits with EXIT_STATUS. */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(long ms) {
  if (ms <= 0)
    return; /* STEP_MS 0: as fast as NVTX goes, for measuring its cost */
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static nvtxRangeId_t epoch_id;

static void *end_epoch(void *arg) {
  (void)arg;
  nvtxRangeEnd(epoch_id);
  return NULL;
}

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 5; i++) {
    nvtxRangePushA("prefetch");
    sleep_ms(1);
    nvtxRangePop();
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: nvtx_ranges_prog STEPS STEP_MS EXIT_STATUS\n");
    return 2;
  }
  int steps = atoi(argv[1]);
  long step_ms = atol(argv[2]);
  int status = atoi(argv[3]);
  nvtxDomainHandle_t io = nvtxDomainCreateA("io");
  nvtxStringHandle_t read_name = nvtxDomainRegisterStringA(io, "read_batch");
  epoch_id = nvtxRangeStartA("epoch");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < steps; i++) {
    nvtxRangePushA("train_step");
    nvtxEventAttributes_t a = {0};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = read_name;
    nvtxDomainRangePushEx(io, &a);
    nvtxDomainRangePop(io);
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "forward";
    nvtxRangePushEx(&a);
    sleep_ms(step_ms / 2);
    nvtxRangePop();
    nvtxRangePushW(L"backward \u2192");
    sleep_ms(step_ms - step_ms / 2);
    nvtxRangePop();
    nvtxRangePop();
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  nvtxMarkA("loop done");
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) == 0)
    pthread_join(t, NULL);
  if (pthread_create(&t, NULL, end_epoch, NULL) == 0)
    pthread_join(t, NULL);
  double loop_ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
  printf("ran %d steps\n", steps);
  /* 4 ranges a step: train_step, read_batch, forward, backward */
  fprintf(stderr, "ns_per_range %.1f\n", steps > 0 ? loop_ns / (4.0 * steps) : 0.0);
  return status;
}
