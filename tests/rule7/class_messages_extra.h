/* The words of the test-only class (rule_test_always.c): its title and
 * explain texts, a row of the message table in lib/render/class_text.c, which
 * includes this file only when GW_EXTRA_CLASS_MESSAGES names it. Not marked
 * for translation: the test build has no catalog for it. */
{"test_always", "A test class that always fires", "seventh-rule signals", "seventh-rule confirm", "seventh-rule fixes"},
