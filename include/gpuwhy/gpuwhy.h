/* libgpuwhy public API: what the gpuwhy CLI and the exporter use. */
#ifndef GPUWHY_H
#define GPUWHY_H

#define GPUWHY_EXIT_OK 0
#define GPUWHY_EXIT_FINDINGS 1
#define GPUWHY_EXIT_USAGE 2
#define GPUWHY_EXIT_INPUT 3

const char *gw_version(void);

#endif
