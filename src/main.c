/* gpuwhy: why is the GPU under-used, and did the fix work. Subcommand table. */
#include <gpuwhy/gpuwhy.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("gpuwhy %s\n", gw_version());
    return 0;
  }
  fprintf(stderr, "usage: gpuwhy COMMAND [ARGS]\n");
  return GPUWHY_EXIT_USAGE;
}
