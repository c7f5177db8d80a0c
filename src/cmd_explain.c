/* gpuwhy explain [CLASS]: the quick reference of the bottleneck classes. */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/report.h>
#include <stdio.h>
#include <string.h>

int gw_cmd_explain(int argc, char **argv);

int gw_cmd_explain(int argc, char **argv) {
  gw_i18n_init();
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    fputs(_("usage: gpuwhy explain [CLASS]\n\nPrint the signals, the way to confirm and the fixes of the "
            "bottleneck classes,\nor of one:"),
          stdout);
    for (int i = 0; gw_class_id_at(i); i++)
      printf("%s %s", i ? "," : "", gw_class_id_at(i));
    fputs(".\n", stdout);
    return GPUWHY_EXIT_OK;
  }
  if (argc > 2) {
    fputs(_("usage: gpuwhy explain [CLASS]\n"), stderr);
    return GPUWHY_EXIT_USAGE;
  }
  if (gw_explain(stdout, argc > 1 ? argv[1] : NULL) != 0) {
    fprintf(stderr, _("gpuwhy explain: unknown class '%s' (gpuwhy explain lists them)\n"), argv[1]);
    return GPUWHY_EXIT_USAGE;
  }
  return GPUWHY_EXIT_OK;
}
