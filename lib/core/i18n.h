/* Translation of the text people read (report and explain) through GNU
 * gettext, text domain "gpuwhy". Machine-read output (JSON keys, class and
 * row ids) is never passed through _(). */
#ifndef GW_I18N_H
#define GW_I18N_H

#include <stdio.h>

#define GW_TEXTDOMAIN "gpuwhy"

/* gw_gettext, _(), N_() and gw_i18n_init are public (the CLI uses them). */
#include <gpuwhy/i18n.h>

/* Machine-read output (every JSON document) is English in every language,
 * so LANG never changes its bytes: between these two calls the messages are
 * in the C locale (gettext then ignores LANGUAGE too). begin returns the
 * locale to restore, which end frees; calls do not nest. */
char *gw_i18n_english_begin(void);
void gw_i18n_english_end(char *saved);

/* Terminal columns taken by UTF-8 text: East Asian wide characters count
 * two, so table columns line up in Chinese too. */
int gw_text_width(const char *s);
/* Write s and pad it with spaces to width columns (left aligned). */
void gw_fputs_padded(FILE *out, const char *s, int width);

#endif
