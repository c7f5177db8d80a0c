/* Translation of the text people read (report and explain) through GNU
 * gettext, text domain "gpuwhy". Machine-read output (JSON keys, class and
 * row ids) is never passed through _(). */
#ifndef GW_I18N_H
#define GW_I18N_H

#include <stdio.h>

#define GW_TEXTDOMAIN "gpuwhy"

/* The translation of msgid in the current locale, or msgid itself. "" and
 * NULL come back unchanged (gettext("") would return the catalog header).
 * format_arg lets the compiler check printf arguments against the msgid. */
const char *gw_gettext(const char *msgid) __attribute__((format_arg(1)));

#define _(s) gw_gettext(s)
/* Marks a string for the catalog without translating it here: static
 * tables, translated where they are printed. */
#define N_(s) (s)

/* Set the locale from the environment and bind the "gpuwhy" domain to its
 * catalog folder: $GPUWHY_LOCALEDIR, else <folder of the binary>/locale
 * (the build tree), else <folder of the binary>/../share/locale (an installed
 * binary under any prefix), else GW_LOCALEDIR. Safe to call
 * more than once; only the first call acts. */
void gw_i18n_init(void);

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
