/* The words of the test-only class's fix (rule_test_always.c): a row of the
 * message table in lib/render/fix_text.c, which includes this file only when
 * GW_EXTRA_FIX_MESSAGES names it. Not marked for translation: the test build
 * has no catalog for it. */
{"test_always.nothing", "seventh-rule fix", "the test rule asks for nothing"},
