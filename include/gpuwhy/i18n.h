/* libgpuwhy public API: translation of the text people read, through GNU
 * gettext (text domain "gpuwhy"). The CLI marks its own messages with _()
 * and N_() like the library does. Machine-read output (JSON keys, class and
 * row ids) is never passed through _(). */
#ifndef GPUWHY_I18N_H
#define GPUWHY_I18N_H

/* The translation of msgid in the current locale, or msgid itself. "" and
 * NULL come back unchanged (gettext("") would return the catalog header).
 * format_arg lets the compiler check printf arguments against the msgid. */
const char *gw_gettext(const char *msgid) __attribute__((format_arg(1)));

/* The form of msgid (singular, English) or msgid_plural that fits count n
 * in the current language: "%d file" / "%d files" in English, one form in
 * Chinese. Used wherever a message prints a count. */
const char *gw_ngettext(const char *msgid, const char *msgid_plural, unsigned long n) __attribute__((format_arg(1)))
__attribute__((format_arg(2)));

#define _(s) gw_gettext(s)
/* Marks a string for the catalog without translating it here: static
 * tables, translated where they are printed. */
#define N_(s) (s)

/* Set the locale from the environment and bind the "gpuwhy" domain to its
 * catalog folder: $GPUWHY_LOCALEDIR, else <folder of the binary>/locale
 * (the build tree), else GW_LOCALEDIR (the install prefix). Safe to call
 * more than once; only the first call acts. */
void gw_i18n_init(void);

#endif
