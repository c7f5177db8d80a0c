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
 * so LANG never changes its bytes. Text worded before its format is known
 * (gpuwhy check words its items when it judges them) asks for English for
 * the thread that words it: _() and gw_ngettext then give the msgid itself.
 * The process's locale is never switched, so other threads keep theirs. */
void gw_i18n_thread_english(int english);
int gw_i18n_thread_is_english(void);
/* strerror in the thread's language: the C library's English text when
 * the thread asked for English, else the locale's. */
const char *gw_strerror(int errnum);
/* dlerror likewise. The C library translates dlerror's text when it is
 * called and has no variant that takes a locale, so for English that one
 * call runs under the C locale for this thread alone (uselocale). */
const char *gw_dlerror(void);

/* Terminal columns taken by UTF-8 text: East Asian wide characters count
 * two, so table columns line up in Chinese too. */
int gw_text_width(const char *s);
/* Write s and pad it with spaces to width columns (left aligned). */
void gw_fputs_padded(FILE *out, const char *s, int width);

#endif
